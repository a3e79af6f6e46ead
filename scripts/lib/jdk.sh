# shellcheck shell=bash
# Sourced by the project's scripts: find a Java >= 22 (java.lang.foreign is final in 22).
# jrdma_find_jdk (the build scripts: a JDK, with bin/javac) and jrdma_find_java (the jrdma
# launchers: a runtime, bin/java, is enough) look at $JAVA_HOME if it is new enough, then
# (jrdma_find_java only) the `java` on PATH, then the newest under /usr/lib/jvm
# ($JRDMA_JVM_DIR, where tests point it elsewhere). Each sets JAVA_HOME and puts its bin/ first
# on PATH, or prints what to install (jrdma_find_java also the too old ones it found) and returns 1.
# SPDX-License-Identifier: Apache-2.0

jrdma_jdk_feature() {  # prints the feature release of the JDK at $1 (e.g. 25), or nothing
    [ -x "$1/bin/javac" ] || return 0
    jrdma_java_feature "$1"
}

# Prints the feature release of the Java runtime at $1 (a JDK or a JRE), or nothing: from its
# release file, else (a runtime without one) from what its java prints for -version.
jrdma_java_feature() {
    local v=""
    [ -x "$1/bin/java" ] || return 0
    if [ -f "$1/release" ]; then
        v=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$1/release")
    fi
    if [ -z "$v" ]; then
        v=$("$1/bin/java" -version 2>&1 | sed -n '1s/^[^"]*"\([0-9]*\).*/\1/p')
    fi
    [ "$v" = 1 ] && v=8   # "1.8.0_...": Java 8
    echo "$v"
}

# The Java home of the `java` on PATH (bin/java's parent, links resolved), or nothing.
jrdma_path_java_home() {
    local java
    java=$(command -v java 2>/dev/null) || return 0
    java=$(readlink -f "$java") || return 0
    dirname "$(dirname "$java")"
}

# jrdma_find_java: the launchers' search, for a Java runtime >= 22 (see the top of this file).
jrdma_find_java() {
    local best="" best_v=0 d v seen="" path_home
    if [ -n "${JAVA_HOME:-}" ]; then
        v=$(jrdma_java_feature "$JAVA_HOME")
        if [ -n "$v" ] && [ "$v" -ge 22 ]; then
            best=$JAVA_HOME best_v=$v
        else
            if [ -x "$JAVA_HOME/bin/java" ]; then v="Java ${v:-of unknown version}"; else v="no bin/java"; fi
            seen+="    JAVA_HOME=$JAVA_HOME: $v"$'\n'
        fi
    fi
    path_home=$(jrdma_path_java_home)
    if [ -z "$best" ] && [ -n "$path_home" ]; then
        v=$(jrdma_java_feature "$path_home")
        if [ -n "$v" ] && [ "$v" -ge 22 ]; then
            best=$path_home best_v=$v
        else
            seen+="    java on PATH ($path_home): Java ${v:-of unknown version}"$'\n'
        fi
    fi
    if [ -z "$best" ]; then
        for d in "${JRDMA_JVM_DIR:-/usr/lib/jvm}"/*; do
            [ -L "$d" ] && continue   # Debian's aliases point at the same JDKs
            v=$(jrdma_java_feature "$d")
            [ -n "$v" ] || continue
            if [ "$v" -ge 22 ] && [ "$v" -gt "$best_v" ]; then
                best=$d best_v=$v
            elif [ "$v" -lt 22 ]; then
                seen+="    $d: Java $v"$'\n'
            fi
        done
    fi
    if [ -z "$best" ]; then
        if [ -n "$seen" ]; then
            printf 'jrdma needs Java 22 or newer (a runtime is enough); found only:\n%s' "$seen" >&2
        else
            echo "jrdma needs Java 22 or newer (a runtime is enough); found none at JAVA_HOME (${JAVA_HOME:-unset}), on PATH or under ${JRDMA_JVM_DIR:-/usr/lib/jvm}." >&2
        fi
        echo "Install one (for example Temurin 25 JRE or JDK, or openjdk-22+ from your distribution) and set JAVA_HOME or put its java on PATH." >&2
        return 1
    fi
    export JAVA_HOME=$best
    export PATH=$JAVA_HOME/bin:$PATH
}

jrdma_find_jdk() {
    local best="" best_v=0 d v
    if [ -n "${JAVA_HOME:-}" ]; then
        v=$(jrdma_jdk_feature "$JAVA_HOME")
        if [ -n "$v" ] && [ "$v" -ge 22 ]; then
            best=$JAVA_HOME best_v=$v
        fi
    fi
    if [ -z "$best" ]; then
        for d in "${JRDMA_JVM_DIR:-/usr/lib/jvm}"/*; do
            [ -L "$d" ] && continue   # Debian's aliases point at the same JDKs
            v=$(jrdma_jdk_feature "$d")
            if [ -n "$v" ] && [ "$v" -ge 22 ] && [ "$v" -gt "$best_v" ]; then
                best=$d best_v=$v
            fi
        done
    fi
    if [ -z "$best" ]; then
        echo "jrdma needs a JDK 22 or newer: none at JAVA_HOME (${JAVA_HOME:-unset}) or under /usr/lib/jvm." >&2
        echo "Install one (for example Temurin 25, or openjdk-22+ from your distribution) and set JAVA_HOME." >&2
        return 1
    fi
    export JAVA_HOME=$best
    export PATH=$JAVA_HOME/bin:$PATH
}
