// SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
/**
 * Raw libibverbs/librdmacm bindings. Not an API: the generated package mirrors the C headers
 * and the shim package re-implements their static inline functions and holds every other
 * downcall (libc's). Each is exported only to the modules that use it: the generated package
 * to the API and the benchmarks, the shims to the API and the tools (--pin-cpu, isatty).
 */
module dev.jrdma.bindings {
    exports dev.jrdma.bindings.generated to dev.jrdma, dev.jrdma.bench;
    exports dev.jrdma.bindings.shim to dev.jrdma, dev.jrdma.tools;
}
