// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.bindings.shim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.FunctionDescriptor;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The ops that {@link VerbsContextOps#create}, {@code destroy} and {@code modify} call through one
 * downcall handle per C signature (those of {@code struct verbs_context}, and
 * {@code ibv_context_ops.dealloc_mw}) really have that signature, as the generated headers give it:
 * an op called through the handle of another signature would get its arguments wrong.
 */
class VerbsContextOpsTest {
    private static final Map<FunctionDescriptor, List<String>> OPS_BY_SIGNATURE = Map.of(
            VerbsContextOps.Signatures.CREATE, List.of("create_cq_ex", "create_qp_ex", "open_xrcd", "open_qp",
                    "create_srq_ex", "alloc_dm", "alloc_td", "alloc_parent_domain", "create_counters",
                    "ibv_create_flow", "create_flow_action_esp", "create_wq", "create_rwq_ind_table"),
            VerbsContextOps.Signatures.DESTROY, List.of("close_xrcd", "free_dm", "dealloc_td", "destroy_counters",
                    "ibv_destroy_flow", "destroy_flow_action", "destroy_wq", "destroy_rwq_ind_table",
                    "ibv_context_ops.dealloc_mw"),
            VerbsContextOps.Signatures.MODIFY, List.of("get_srq_num", "modify_qp_rate_limit",
                    "modify_flow_action_esp", "modify_wq", "modify_cq", "query_rt_values"));

    @Test
    void everyOpCalledThroughASharedHandleHasItsSignature() throws ReflectiveOperationException {
        for (var entry : OPS_BY_SIGNATURE.entrySet()) {
            for (String op : entry.getValue()) {
                // jextract gives each function-pointer field of a struct a nested class with its
                // descriptor; an op of another table than verbs_context is named struct.op.
                String field = op.contains(".") ? op.replace('.', '$') : "verbs_context$" + op;
                Object descriptor = Class.forName("dev.jrdma.bindings.generated." + field)
                        .getMethod("descriptor").invoke(null);
                assertEquals(entry.getKey(), descriptor, op);
            }
        }
    }
}
