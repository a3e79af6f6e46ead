# shellcheck shell=bash
# Sourced by the project's scripts: find a JDK >= 22 (java.lang.foreign is final in 22).
# Order: $JAVA_HOME if it is new enough, then the newest JDK under /usr/lib/jvm.
# Sets JAVA_HOME and puts its bin/ first on PATH, or prints what to install and returns 1.
# SPDX-License-Identifier: Apache-2.0

jrdma_jdk_feature() {  # prints the feature release of the JDK at $1 (e.g. 25), or nothing
    local release=$1/release v
    [ -x "$1/bin/javac" ] && [ -f "$release" ] || return 0
    v=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$release")
    [ "$v" = 1 ] && v=8
    echo "$v"
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
        for d in /usr/lib/jvm/*; do
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
