// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
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

    private void refuse(String option, String needs) {
        throw new ParameterException(mixee.commandLine(), "option '" + option + "': " + needs);
    }

    @Option(names = "--use_cuda", hidden = true, paramLabel = "ID", description = CUDA)
    void useCuda(String value) { refuse("--use_cuda", CUDA); }

    @Option(names = "--cuda_mem_type", hidden = true, paramLabel = "TYPE", description = CUDA)
    void cudaMemType(String value) { refuse("--cuda_mem_type", CUDA); }

    @Option(names = "--use_cuda_bus_id", hidden = true, paramLabel = "BUS_ID", description = CUDA)
    void useCudaBusId(String value) { refuse("--use_cuda_bus_id", CUDA); }

    @Option(names = "--use_cuda_dmabuf", hidden = true, description = CUDA)
    void useCudaDmabuf(boolean value) { refuse("--use_cuda_dmabuf", CUDA); }

    @Option(names = "--use_cuda_pcie_mapping", hidden = true, description = CUDA)
    void useCudaPcieMapping(boolean value) { refuse("--use_cuda_pcie_mapping", CUDA); }

    @Option(names = "--use_data_direct", hidden = true, description = DATA_DIRECT)
    void useDataDirect(boolean value) { refuse("--use_data_direct", DATA_DIRECT); }

    @Option(names = "--use_musa", hidden = true, paramLabel = "ID", description = MUSA)
    void useMusa(String value) { refuse("--use_musa", MUSA); }

    @Option(names = "--use_musa_bus_id", hidden = true, paramLabel = "BUS_ID", description = MUSA)
    void useMusaBusId(String value) { refuse("--use_musa_bus_id", MUSA); }

    @Option(names = "--use_musa_dmabuf", hidden = true, description = MUSA)
    void useMusaDmabuf(boolean value) { refuse("--use_musa_dmabuf", MUSA); }

    @Option(names = "--use_musa_pcie_mapping", hidden = true, description = MUSA)
    void useMusaPcieMapping(boolean value) { refuse("--use_musa_pcie_mapping", MUSA); }

    @Option(names = "--use_rocm", hidden = true, paramLabel = "ID", description = ROCM)
    void useRocm(String value) { refuse("--use_rocm", ROCM); }

    @Option(names = "--use_rocm_dmabuf", hidden = true, description = ROCM)
    void useRocmDmabuf(boolean value) { refuse("--use_rocm_dmabuf", ROCM); }

    @Option(names = "--use_neuron", hidden = true, paramLabel = "CORE", description = NEURON)
    void useNeuron(String value) { refuse("--use_neuron", NEURON); }

    @Option(names = "--use_neuron_dmabuf", hidden = true, description = NEURON)
    void useNeuronDmabuf(boolean value) { refuse("--use_neuron_dmabuf", NEURON); }

    @Option(names = "--use_hl", hidden = true, paramLabel = "ID", description = HABANA)
    void useHl(String value) { refuse("--use_hl", HABANA); }

    @Option(names = "--use_mlu", hidden = true, paramLabel = "ID", description = MLU)
    void useMlu(String value) { refuse("--use_mlu", MLU); }

    @Option(names = "--use_mlu_dmabuf", hidden = true, description = MLU)
    void useMluDmabuf(boolean value) { refuse("--use_mlu_dmabuf", MLU); }

    @Option(names = "--use_opencl", hidden = true, paramLabel = "ID", description = OPENCL)
    void useOpencl(String value) { refuse("--use_opencl", OPENCL); }

    @Option(names = "--opencl_platform_id", hidden = true, paramLabel = "ID", description = OPENCL)
    void openclPlatformId(String value) { refuse("--opencl_platform_id", OPENCL); }

    @Option(names = "--gpu_touch", hidden = true, paramLabel = "MODE", description = GPU_TOUCH)
    void gpuTouch(String value) { refuse("--gpu_touch", GPU_TOUCH); }

    @Option(names = "--aes_xts", hidden = true, description = AES_XTS)
    void aesXts(boolean value) { refuse("--aes_xts", AES_XTS); }

    @Option(names = "--encrypt_on_tx", hidden = true, description = AES_XTS)
    void encryptOnTx(boolean value) { refuse("--encrypt_on_tx", AES_XTS); }

    @Option(names = "--sig_before", hidden = true, description = AES_XTS)
    void sigBefore(boolean value) { refuse("--sig_before", AES_XTS); }

    @Option(names = "--aes_block_size", hidden = true, paramLabel = "BYTES", description = AES_XTS)
    void aesBlockSize(String value) { refuse("--aes_block_size", AES_XTS); }

    @Option(names = "--data_enc_keys_number", hidden = true, paramLabel = "N", description = AES_XTS)
    void dataEncKeysNumber(String value) { refuse("--data_enc_keys_number", AES_XTS); }

    @Option(names = "--kek_path", hidden = true, paramLabel = "FILE", description = AES_XTS)
    void kekPath(String value) { refuse("--kek_path", AES_XTS); }

    @Option(names = "--credentials_path", hidden = true, paramLabel = "FILE", description = AES_XTS)
    void credentialsPath(String value) { refuse("--credentials_path", AES_XTS); }

    @Option(names = "--data_enc_key_app_path", hidden = true, paramLabel = "FILE", description = AES_XTS)
    void dataEncKeyAppPath(String value) { refuse("--data_enc_key_app_path", AES_XTS); }

    @Option(names = "--sig_offload", hidden = true, description = SIGNATURE)
    void sigOffload(boolean value) { refuse("--sig_offload", SIGNATURE); }

    @Option(names = "--log_dci_streams", hidden = true, paramLabel = "N", description = DCI_STREAMS)
    void logDciStreams(String value) { refuse("--log_dci_streams", DCI_STREAMS); }

    @Option(names = "--log_active_dci_streams", hidden = true, paramLabel = "N", description = DCI_STREAMS)
    void logActiveDciStreams(String value) { refuse("--log_active_dci_streams", DCI_STREAMS); }

    @Option(names = "--unsolicited_write", hidden = true, description = UNSOLICITED_WRITE)
    void unsolicitedWrite(boolean value) { refuse("--unsolicited_write", UNSOLICITED_WRITE); }

    @Option(names = "--tph_mem", hidden = true, paramLabel = "TYPE", description = TPH)
    void tphMem(String value) { refuse("--tph_mem", TPH); }

    @Option(names = "--cpu_id", hidden = true, paramLabel = "CPU", description = TPH)
    void cpuId(String value) { refuse("--cpu_id", TPH); }

    @Option(names = "--ph", hidden = true, paramLabel = "HINTS", description = TPH)
    void processingHints(String value) { refuse("--ph", TPH); }

    @Option(names = "--congest_type", hidden = true, paramLabel = "TYPE", description = HNS)
    void congestType(String value) { refuse("--congest_type", HNS); }

    @Option(names = "--use_ooo", hidden = true, description = OOO)
    void useOoo(boolean value) { refuse("--use_ooo", OOO); }

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
        @Spec(Spec.Target.MIXEE)
        CommandSpec mixee;

        private String why() {
            return mixee.name().startsWith("atomic") ? VALIDATION_ATOMIC : VALIDATION_SEND;
        }

        @Option(names = "--data_validation", hidden = true,
                description = "send-bw: " + VALIDATION_SEND + "; atomic-bw: " + VALIDATION_ATOMIC)
        void dataValidation(boolean value) {
            throw new ParameterException(mixee.commandLine(), "option '--data_validation': " + why());
        }

        @Option(names = "--data_validation_debug", hidden = true,
                description = "needs --data_validation: send-bw: " + VALIDATION_SEND + "; atomic-bw: "
                        + VALIDATION_ATOMIC)
        void dataValidationDebug(boolean value) {
            throw new ParameterException(mixee.commandLine(), "option '--data_validation_debug': " + why());
        }
    }
}
