package dev.jrdma.tools.perftest;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The order of out-of-band exchanges after the version/system-data/MTU preamble, as each
 * perftest 6.06 binary runs it (src/*_lat.c, src/*_bw.c main()), for iteration runs without -b,
 * over the Ethernet exchange (no -R). perftest's sides simply block on the next message, so a
 * peer that deviates (one more sync, a report it does not expect) hangs or desynchronises the
 * other side: the device part must follow these lists exactly. Verified against captured
 * perftest-to-perftest exchanges (src/test/resources/.../golden/*.wire.txt).
 *
 * <p>Notes from the sources:
 * <ul>
 * <li>write_lat never calls ctx_close_connection: no final sync and no "done"; it just exits.</li>
 * <li>read_lat and atomic_lat servers do their final sync right after connecting, and the client
 *     answers it after its run - the server blocks there meanwhile.</li>
 * <li>write/read/atomic BW: one report exchange after the whole -a sweep (the server prints only
 *     the last size, with the client's numbers); the server's own record is uninitialised memory
 *     in perftest, so a client must not interpret it.</li>
 * <li>atomic_lat has no -a loop; jrdma's -a for atomics is the single size 8.</li>
 * </ul>
 */
public final class PerftestSchedule {

    /** One step. */
    public enum Step {
        /** One key exchange per QP ({@link PerftestChannel#exchangeKeys}). */
        KEYS,
        /** One sync with QP 0's record ({@link PerftestChannel#sync}). */
        SYNC,
        /** Connect the QPs (RTR/RTS) with the peer's keys: no exchange. */
        CONNECT,
        /** Run one size (no exchange); followed by printing its row where the test prints one. */
        RUN,
        /** The BW report exchange ({@link PerftestChannel#exchangeBwReport}). */
        REPORT,
        /** Final sync + "done" ({@link PerftestChannel#finish}). */
        FINISH,
        /** Close the socket with no final exchange (write_lat). */
        CLOSE
    }

    private PerftestSchedule() {
    }

    /**
     * The steps for one side.
     *
     * @param kind   the test
     * @param client the side with a host argument
     * @param sizes  1, or the number of sizes of an -a sweep
     */
    public static List<Step> of(TestKind kind, boolean client, int sizes) {
        if (sizes < 1) {
            throw new IllegalArgumentException("sizes must be >= 1");
        }
        List<Step> s = new ArrayList<>();
        switch (kind) {
            case SEND_LAT -> {
                s.addAll(List.of(Step.KEYS, Step.CONNECT, Step.SYNC, Step.KEYS));
                for (int i = 0; i < sizes; i++) {
                    s.add(Step.SYNC);   // receives posted before the peer sends
                    s.add(Step.RUN);
                }
                s.add(Step.FINISH);
            }
            case WRITE_LAT -> {
                s.addAll(List.of(Step.SYNC, Step.KEYS, Step.CONNECT, Step.KEYS, Step.SYNC));
                s.addAll(Collections.nCopies(sizes, Step.RUN));
                s.add(Step.CLOSE);
            }
            case READ_LAT, ATOMIC_LAT -> {
                int runs = kind == TestKind.ATOMIC_LAT ? 1 : sizes;
                s.addAll(List.of(Step.SYNC, Step.KEYS, Step.CONNECT, Step.KEYS, Step.SYNC));
                if (client) {
                    s.addAll(Collections.nCopies(runs, Step.RUN));
                }
                s.add(Step.FINISH);
            }
            case SEND_BW -> {
                s.addAll(List.of(Step.KEYS, Step.CONNECT, Step.SYNC, Step.KEYS));
                if (sizes == 1) {
                    s.add(Step.SYNC);
                    s.add(Step.RUN);
                } else {
                    for (int i = 0; i < sizes; i++) {
                        s.add(Step.SYNC);
                        s.add(Step.RUN);
                        s.add(Step.SYNC);
                    }
                }
                s.add(Step.FINISH);
            }
            case WRITE_BW, READ_BW, ATOMIC_BW -> {
                int runs = kind == TestKind.ATOMIC_BW ? 1 : sizes;
                s.addAll(List.of(Step.KEYS, Step.CONNECT, Step.KEYS, Step.SYNC));
                if (client) {
                    s.addAll(Collections.nCopies(runs, Step.RUN));
                }
                s.add(Step.SYNC);
                s.add(Step.REPORT);
                s.add(Step.FINISH);
            }
        }
        return List.copyOf(s);
    }
}
