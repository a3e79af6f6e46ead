// SPDX-License-Identifier: Apache-2.0
package dev.jrdma;

import dev.jrdma.bindings.generated.rdma_h;
import dev.jrdma.internal.CValues;

/**
 * A static rate ({@code enum ibv_rate}): the data rate of a path, as an address vector's
 * {@code static_rate} and the port's width and speed express it. Its multiple of 2.5 Gb/s and
 * its Mb/s are what libibverbs computes ({@code ibv_rate_to_mult}, {@code ibv_rate_to_mbps});
 * {@link #ofMultiplier} and {@link #ofMbps} go the other way. Pure functions of libibverbs: no
 * device needed.
 */
public enum Rate {
    /** {@code IBV_RATE_MAX}: no limit, the path's full rate (multiplier and Mb/s -1). */
    MAX(0),
    /** 2.5 Gb/s. */
    GBPS_2_5(2),
    /** 5 Gb/s. */
    GBPS_5(5),
    /** 10 Gb/s. */
    GBPS_10(3),
    /** 14 Gb/s. */
    GBPS_14(11),
    /** 20 Gb/s. */
    GBPS_20(6),
    /** 25 Gb/s. */
    GBPS_25(15),
    /** 28 Gb/s. */
    GBPS_28(19),
    /** 30 Gb/s. */
    GBPS_30(4),
    /** 40 Gb/s. */
    GBPS_40(7),
    /** 50 Gb/s. */
    GBPS_50(20),
    /** 56 Gb/s. */
    GBPS_56(12),
    /** 60 Gb/s. */
    GBPS_60(8),
    /** 80 Gb/s. */
    GBPS_80(9),
    /** 100 Gb/s. */
    GBPS_100(16),
    /** 112 Gb/s. */
    GBPS_112(13),
    /** 120 Gb/s. */
    GBPS_120(10),
    /** 168 Gb/s. */
    GBPS_168(14),
    /** 200 Gb/s. */
    GBPS_200(17),
    /** 300 Gb/s. */
    GBPS_300(18),
    /** 400 Gb/s. */
    GBPS_400(21),
    /** 600 Gb/s. */
    GBPS_600(22),
    /** 800 Gb/s. */
    GBPS_800(23),
    /** 1200 Gb/s. */
    GBPS_1200(24);

    private static final CValues<Rate> VALUES = new CValues<>(values(), r -> r.value, MAX, "Rate");

    private final int value;

    Rate(int value) {
        this.value = value;
    }

    /** The value of the C enum constant. */
    int value() {
        return value;
    }

    /**
     * {@return the rate as a multiple of 2.5 Gb/s; -1 for {@link #MAX} and for the rates of the
     * 64b/66b-coded generations (14, 25, 56, 100, 112, 168, 200, 300 Gb/s), which are none}
     */
    @Reaches("ibv_rate_to_mult")
    public int multiplier() {
        return rdma_h.ibv_rate_to_mult(value);
    }

    /** {@return the rate in Mb/s (e.g. 25781 for {@link #GBPS_25}, its line rate); -1 for {@link #MAX}} */
    @Reaches("ibv_rate_to_mbps")
    public int mbps() {
        return rdma_h.ibv_rate_to_mbps(value);
    }

    /**
     * {@return the rate whose multiple of 2.5 Gb/s is {@code multiplier}, or {@link #MAX} when none is}
     *
     * @param multiplier e.g. 4 for 10 Gb/s
     */
    @Reaches("mult_to_ibv_rate")
    public static Rate ofMultiplier(int multiplier) {
        return of(rdma_h.mult_to_ibv_rate(multiplier));
    }

    /**
     * {@return the rate of exactly {@code mbps} Mb/s as libibverbs lists it, or {@link #MAX} when none is}
     *
     * @param mbps e.g. 25781 for 25 Gb/s
     */
    @Reaches("mbps_to_ibv_rate")
    public static Rate ofMbps(int mbps) {
        return of(rdma_h.mbps_to_ibv_rate(mbps));
    }

    static Rate of(int value) {
        return VALUES.of(value);
    }
}
