# shellcheck shell=bash
# Sourced by scripts/jrdma: class data sharing for the JVMs it starts under qemu TCG (the
# Soft-RoCE VMs), where a JVM's start is mostly class loading and linking at a small fraction of
# the host's speed. In one boot, `jrdma devinfo` took 30-37 s without an archive and 16-19 s
# with one (research/notes/2026-11-25-cds-under-emulation.md).
#
# jrdma_cds_opts CLASSPATH prints the options, or nothing: outside TCG, when JRDMA_JAVA_OPTS
# chooses CDS or an AOT cache itself, or when the class path names a directory (the JVM archives classes from
# jars only; with a non-empty directory on the path its dump fails and so does its exit status).
# AutoCreateSharedArchive: the first JVM of a class path writes the archive as it exits, the next
# ones map it, and a rebuilt jar makes the next JVM write it again; six JVMs started at once
# without an archive all ended well, and so did six with it. The archive is code the JVM maps,
# so it lives in a directory of this user's with mode 700. Its log is off: the tests read the
# tool's stdout and stderr.
# SPDX-License-Identifier: Apache-2.0
jrdma_cds_opts() {
    local dir entry
    # An AOT cache (JDK 24+: -XX:AOTCache, -XX:AOTCacheOutput, -XX:AOTMode) is a class-data
    # archive too, and the JVM takes one archive: the caller's choice wins.
    case "${JRDMA_JAVA_OPTS:-}" in *SharedArchiveFile*|*Xshare*|*AOTCache*|*AOTMode*) return 0 ;; esac
    grep -qs "QEMU TCG" /proc/cpuinfo || return 0
    while IFS= read -r -d: entry; do
        [ ! -d "$entry" ] || return 0
    done <<<"$1:"
    dir=/var/tmp/jrdma-cds-$(id -u)
    mkdir -p -m 700 "$dir" 2>/dev/null || return 0
    [ -O "$dir" ] && [ "$(stat -c %a "$dir")" = 700 ] || return 0
    echo "-XX:SharedArchiveFile=$dir/$(printf '%s' "$1" | sha256sum | cut -c1-16).jsa -XX:+AutoCreateSharedArchive -Xlog:cds*=off,aot*=off"
}
