// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

/**
 * What perftest's header block ({@code ctx_print_test_info}) shows about a run.
 *
 * @param verb            the operation
 * @param atomicType      "CMP_AND_SWAP" or "FETCH_AND_ADD" for atomic tests, else null
 * @param bandwidth       BW test (else latency)
 * @param duplex          bidirectional (-b)
 * @param client          this side has a host argument
 * @param device          device name
 * @param numQps          -q
 * @param transport       "IB" for IB and RoCE devices, "IW" for iWARP
 * @param connection      "RC", "UC", "UD"
 * @param useSrq          SRQ in use
 * @param pcieRelaxOrder  "ON", "OFF" or "Unsupported" (Debian's 6.06 prints ON)
 * @param wrApi           the ibv_wr_* post API: "ON" or "OFF" (Debian's 6.06 on rxe prints OFF)
 * @param txDepth         -t (printed on the client or when duplex)
 * @param rxDepth         -r (printed for send tests on the server or when duplex)
 * @param postList        -l (printed when > 1)
 * @param cqMod           -Q (printed for BW tests)
 * @param mtuBytes        the agreed path MTU in bytes
 * @param linkType        "Ethernet" or "IB"
 * @param gidIndex        -x, or -1 when no GID is used (then not printed)
 * @param inlineSize      max inline data (printed for send/write)
 * @param outReads        outstanding reads (printed for read/atomic)
 * @param rdmaCm          -R
 * @param useEvent        -e (prints the "Test with events" line)
 * @param durationSeconds -D, or 0 for an iteration run
 * @param completionVector -X: the completion vector of the CQs (printed in the events line), 0 by default
 * @param commRdmaCm      -z without -R: "Data ex. method : rdma_cm" with "rdma_cm QPs : OFF"
 */
public record TestInfo(Verb verb, String atomicType, boolean bandwidth, boolean duplex, boolean client,
                       String device, int numQps, String transport, String connection, boolean useSrq,
                       String pcieRelaxOrder, String wrApi, int txDepth, int rxDepth, int postList, int cqMod,
                       int mtuBytes, String linkType, int gidIndex, int inlineSize, int outReads, boolean rdmaCm,
                       boolean useEvent, int durationSeconds, int completionVector, boolean commRdmaCm) {

    /** A test on completion vector 0 (no -X). */
    public TestInfo(Verb verb, String atomicType, boolean bandwidth, boolean duplex, boolean client,
                    String device, int numQps, String transport, String connection, boolean useSrq,
                    String pcieRelaxOrder, String wrApi, int txDepth, int rxDepth, int postList, int cqMod,
                    int mtuBytes, String linkType, int gidIndex, int inlineSize, int outReads, boolean rdmaCm,
                    boolean useEvent, int durationSeconds) {
        this(verb, atomicType, bandwidth, duplex, client, device, numQps, transport, connection, useSrq,
                pcieRelaxOrder, wrApi, txDepth, rxDepth, postList, cqMod, mtuBytes, linkType, gidIndex, inlineSize,
                outReads, rdmaCm, useEvent, durationSeconds, 0, false);
    }

    /** perftest's title line word sequence without the indent, e.g. "RDMA_Write BW Test". */
    public String title() {
        StringBuilder sb = new StringBuilder(verb.title()).append(' ');
        if (verb == Verb.ATOMIC && atomicType != null) {
            sb.append(atomicType).append(' ');
        }
        if (bandwidth) {
            if (duplex) {
                sb.append("Bidirectional ");
            }
            if (postList > 1) {
                sb.append("Post List ");
            }
            sb.append("BW ");
        } else {
            sb.append("Latency ");
        }
        return sb.append("Test").toString();
    }
}
