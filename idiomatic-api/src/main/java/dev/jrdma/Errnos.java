package dev.jrdma;

/** errno values jrdma reacts to; Linux x86-64/aarch64 numbering (asm-generic/errno*.h). */
final class Errnos {
    private Errnos() {}

    static final int EPERM = 1;
    static final int ENOMEM = 12;
    static final int EBUSY = 16;
    static final int EINVAL = 22;
    static final int ENODATA = 61;
    static final int EOPNOTSUPP = 95;
}
