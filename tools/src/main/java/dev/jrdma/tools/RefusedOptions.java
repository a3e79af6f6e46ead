// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import static dev.jrdma.tools.UsageErrors.usage;

import java.util.List;
import picocli.CommandLine.Model.ISetter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * perftest's options for hardware that jrdma cannot use on any machine it knows of: GPU and
 * accelerator memory, mlx5-only offloads (AES-XTS, signature, DC streams, out-of-order
 * placement), EFA's SRD unsolicited writes, HiSilicon's congestion control, PCIe TLP processing
 * hints. Each is parsed as perftest parses it (with or without a value, so a perftest command
 * line is read to its end) and ends the run at once with exit status 2 and one line naming the
 * option and what it needs. Hidden: they would only clutter {@code --help}; the mapping page
 * lists them with their reasons (each option's description here).
 *
 * <p>What a device could offer is asked of the device instead ({@link DeviceRefusals}).
 */
final class RefusedOptions {
    static final String CUDA = "needs an NVIDIA GPU with CUDA (GPUDirect RDMA); jrdma registers host memory only";
    static final String DATA_DIRECT = "needs CUDA DMA-BUF memory through an mlx5 Data Direct device; jrdma registers "
            + "host memory only";
    static final String MUSA = "needs a Moore Threads GPU with MUSA; jrdma registers host memory only";
    static final String ROCM = "needs an AMD GPU with ROCm; jrdma registers host memory only";
    static final String NEURON = "needs an AWS Neuron accelerator; jrdma registers host memory only";
    static final String HABANA = "needs a Habana Labs Gaudi accelerator; jrdma registers host memory only";
    static final String MLU = "needs a Cambricon MLU accelerator; jrdma registers host memory only";
    static final String OPENCL = "needs an OpenCL GPU device; jrdma registers host memory only";
    static final String GPU_TOUCH = "needs GPU memory (CUDA or OpenCL) to touch; jrdma registers host memory only";
    static final String AES_XTS = "needs AES-XTS crypto offload (mlx5 direct verbs, a crypto-enabled ConnectX)";
    static final String SIGNATURE = "needs T10-DIF signature offload (mlx5 direct verbs)";
    static final String DCI_STREAMS = "needs the DC transport (mlx5 direct verbs)";
    static final String UNSOLICITED_WRITE = "needs SRD with unsolicited write receive (an AWS EFA device)";
    static final String TPH = "needs PCIe TLP processing hints (ibv_reg_mr_ex with a DMA handle, newer than "
            + "rdma-core 44) and a device with TPH";
    static final String HNS = "needs a HiSilicon hns device (hnsdv congestion control)";
    static final String OOO = "needs out-of-order data placement (mlx5 direct verbs)";

    @Spec(Spec.Target.MIXEE)
    CommandSpec mixee;

    /** Set by {@code -c XRC} ({@link DeviceRefusals.ConnectionTypes}): asked of the device in {@link DeviceRefusals}. */
    boolean xrc;

    /** Set by {@code --use_ib_dm_dmabuf}: the device whose memory perftest would export; asked in {@link DeviceRefusals}. */
    String deviceMemoryDevice;

    /**
     * One refused option: its name, the value it takes as perftest parses it ({@code label}, null
     * for a flag) and what it needs.
     */
    private record Refusal(String name, String label, String needs) {
    }

    private static final List<Refusal> REFUSALS = List.of(
            new Refusal("--use_cuda", "ID", CUDA),
            new Refusal("--cuda_mem_type", "TYPE", CUDA),
            new Refusal("--use_cuda_bus_id", "BUS_ID", CUDA),
            new Refusal("--use_cuda_dmabuf", null, CUDA),
            new Refusal("--use_cuda_pcie_mapping", null, CUDA),
            new Refusal("--use_data_direct", null, DATA_DIRECT),
            new Refusal("--use_musa", "ID", MUSA),
            new Refusal("--use_musa_bus_id", "BUS_ID", MUSA),
            new Refusal("--use_musa_dmabuf", null, MUSA),
            new Refusal("--use_musa_pcie_mapping", null, MUSA),
            new Refusal("--use_rocm", "ID", ROCM),
            new Refusal("--use_rocm_dmabuf", null, ROCM),
            new Refusal("--use_neuron", "CORE", NEURON),
            new Refusal("--use_neuron_dmabuf", null, NEURON),
            new Refusal("--use_hl", "ID", HABANA),
            new Refusal("--use_mlu", "ID", MLU),
            new Refusal("--use_mlu_dmabuf", null, MLU),
            new Refusal("--use_opencl", "ID", OPENCL),
            new Refusal("--opencl_platform_id", "ID", OPENCL),
            new Refusal("--gpu_touch", "MODE", GPU_TOUCH),
            new Refusal("--aes_xts", null, AES_XTS),
            new Refusal("--encrypt_on_tx", null, AES_XTS),
            new Refusal("--sig_before", null, AES_XTS),
            new Refusal("--aes_block_size", "BYTES", AES_XTS),
            new Refusal("--data_enc_keys_number", "N", AES_XTS),
            new Refusal("--kek_path", "FILE", AES_XTS),
            new Refusal("--credentials_path", "FILE", AES_XTS),
            new Refusal("--data_enc_key_app_path", "FILE", AES_XTS),
            new Refusal("--sig_offload", null, SIGNATURE),
            new Refusal("--log_dci_streams", "N", DCI_STREAMS),
            new Refusal("--log_active_dci_streams", "N", DCI_STREAMS),
            new Refusal("--unsolicited_write", null, UNSOLICITED_WRITE),
            new Refusal("--tph_mem", "TYPE", TPH),
            new Refusal("--cpu_id", "CPU", TPH),
            new Refusal("--ph", "HINTS", TPH),
            new Refusal("--congest_type", "TYPE", HNS),
            new Refusal("--use_ooo", null, OOO));

    /**
     * Adds the refused options to a test command and its "refusals" mixin (the mapping page reads
     * them there). A table instead of one annotated method each: they differ only in name, value
     * and reason.
     */
    static void addTo(CommandSpec command) {
        CommandSpec mixin = command.mixins().get("refusals");
        for (Refusal r : REFUSALS) {
            OptionSpec option = NoEffectOptions.tableOption(r.name(), r.label(), String.class).hidden(true)
                    .description(r.needs()).setter(new ISetter() {
                        @Override
                        public <T> T set(T value) {
                            throw usage(command, "option '" + r.name() + "': " + r.needs());
                        }
                    }).build();
            mixin.addOption(option);   // first: adding to the command makes it the option's owner
            command.addOption(option);
        }
    }

    @Option(names = "--use_ib_dm_dmabuf", hidden = true, paramLabel = "DEV", description = DeviceRefusals.DEVICE_MEMORY)
    void useIbDmDmabuf(String device) { deviceMemoryDevice = device; }

    static final String VALIDATION_SEND = "perftest 26.04 validates RDMA write and read only (on send-bw it exits: "
            + "'only supported with WRITE or READ verb'); jrdma's --data_validation is on write-bw and read-bw";
    static final String VALIDATION_ATOMIC = "an atomic moves 8 bytes whose value depends on every earlier atomic "
            + "on the word, not a pattern to compare; perftest 26.04 validates RDMA write and read only (it exits: "
            + "'only supported with WRITE or READ verb')";

    /**
     * --data_validation and --data_validation_debug where perftest 26.04's usage() lists them but
     * its run refuses them: send-bw and atomic-bw. A mixin whose field name starts with
     * "refusals", so the mapping page reads them as refusals.
     */
    static final class DataValidation {
        /** The test command, set by {@link PerftestCommands#of}. */
        CommandSpec mixee;

        private String why() {
            return mixee.name().startsWith("atomic") ? VALIDATION_ATOMIC : VALIDATION_SEND;
        }

        @Option(names = "--data_validation", hidden = true,
                description = "send-bw: " + VALIDATION_SEND + "; atomic-bw: " + VALIDATION_ATOMIC)
        void dataValidation(boolean value) {
            throw usage(mixee, "option '--data_validation': " + why());
        }

        @Option(names = "--data_validation_debug", hidden = true,
                description = "needs --data_validation: send-bw: " + VALIDATION_SEND + "; atomic-bw: "
                        + VALIDATION_ATOMIC)
        void dataValidationDebug(boolean value) {
            throw usage(mixee, "option '--data_validation_debug': " + why());
        }
    }
}
