/**
 * Raw libibverbs/librdmacm bindings. Not an API: the generated package mirrors the C headers
 * and the shim package re-implements their static inline functions. Both are exported only
 * to jrdma's own modules.
 */
module dev.jrdma.bindings {
    exports dev.jrdma.bindings.generated to dev.jrdma, dev.jrdma.tools, dev.jrdma.bench;
    exports dev.jrdma.bindings.shim to dev.jrdma, dev.jrdma.tools, dev.jrdma.bench;
}
