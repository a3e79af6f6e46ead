// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools;

import static dev.jrdma.tools.CommandLines.run;
import static dev.jrdma.tools.CommandLines.settings;
import static dev.jrdma.tools.CommandLines.usageError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.tools.CommandLines.Result;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * perftest's options for absent hardware: parsed as perftest parses them, refused with exit
 * status 2 and one line naming the option and what it needs, hidden from --help; and perftest's
 * spellings where jrdma's differ. The refusals that ask a device are PerftestUsageDeviceTest's.
 */
class PerftestRefusalsTest {
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "write-bw --use_cuda 0 10.0.0.1                   | --use_cuda           | NVIDIA GPU with CUDA",
        "write-bw --use_cuda=0                            | --use_cuda           | NVIDIA GPU with CUDA",
        "read-lat --use_cuda_dmabuf                       | --use_cuda_dmabuf    | NVIDIA GPU with CUDA",
        "send-bw --use_rocm 1                             | --use_rocm           | AMD GPU with ROCm",
        "send-lat --use_neuron 0                          | --use_neuron         | AWS Neuron",
        "atomic-bw --use_hl 0                             | --use_hl             | Habana Labs",
        "write-lat --use_mlu_dmabuf                       | --use_mlu_dmabuf     | Cambricon MLU",
        "read-bw --use_opencl 0                           | --use_opencl         | OpenCL",
        "send-bw --use_musa_pcie_mapping                  | --use_musa_pcie_mapping | Moore Threads",
        "write-bw --use_data_direct                       | --use_data_direct    | Data Direct",
        "write-bw --gpu_touch once                        | --gpu_touch          | GPU memory",
        "send-bw --aes_xts                                | --aes_xts            | AES-XTS",
        "send-bw --kek_path /tmp/k                        | --kek_path           | AES-XTS",
        "write-lat --sig_offload                          | --sig_offload        | T10-DIF",
        "send-lat --log_dci_streams 2                     | --log_dci_streams    | DC transport",
        "write-bw --unsolicited_write                     | --unsolicited_write  | EFA",
        "read-bw --tph_mem pm                             | --tph_mem            | TLP processing hints",
        "send-bw --congest_type DCQCN                     | --congest_type       | HiSilicon",
        "write-bw --use_ooo                               | --use_ooo            | out-of-order",
        "send-bw -c DC                                    | --connection' (-c    | DC transport",
        "atomic-lat -c DC                                 | --connection' (-c    | DC transport",
        "write-bw --connection=SRD                        | --connection' (-c    | EFA",
        "read-lat -cSRD                                   | --connection' (-c    | EFA",
    })
    void absentHardwareIsRefusedByNameWithExit2(String commandLine, String option, String needs) {
        Result r = usageError("option '" + option.strip(), commandLine.strip().split(" +"));
        assertTrue(r.err().contains(needs.strip()), r.err());
        assertEquals("", r.out());
    }

    @Test
    void srdIsNotOfferedOnAtomicTestsAsInPerftest() {
        usageError("expected one of [RC, UC, UD]", "atomic-bw", "-c", "SRD");
    }

    @Test
    void xrcIsAcceptedByTheParserAndAskedOfTheDevice() {
        // No such device to ask: a failure of the run (exit 1) naming it, not a usage error. The
        // device's answers are PerftestUsageDeviceTest's.
        Result r = run("send-bw", "-d", "nosuch0", "-c", "XRC", "10.0.0.1");
        assertEquals(1, r.code(), r.err());
        assertTrue(r.err().contains("no RDMA device 'nosuch0' to ask for XRC"), r.err());
        // Usage errors still come first.
        usageError("'--size' (-s)", "send-bw", "-d", "nosuch0", "-c", "XRC", "-s", "0", "10.0.0.1");
    }

    @Test
    void refusedOptionsAreHiddenFromHelp() {
        Result r = run("write-bw", "--help");
        assertEquals(0, r.code());
        for (String hidden : List.of("--use_cuda", "--aes_xts", "--log_dci_streams", "--use_ib_dm_dmabuf")) {
            assertFalse(r.out().contains(hidden), hidden + " in --help");
        }
    }

    @Test
    void everyRefusedOptionTakesAValueExactlyWhenPerftestsDoes() {
        CommandLine cl = Jrdma.commandLine(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()));
        Set<String> refused = cl.getSubcommands().get("send-bw").getCommandSpec().mixins().get("refusals").options()
                .stream().map(OptionSpec::longestName).collect(Collectors.toSet());
        int checked = 0;
        for (PerftestInventory.Option o : PerftestInventory.options()) {
            if (refused.contains(o.longName())) {
                OptionSpec spec = cl.getSubcommands().get("send-bw").getCommandSpec().findOption(o.longName());
                assertEquals(o.takesValue(), spec.arity().min() > 0, o.longName());
                checked++;
            }
        }
        assertEquals(refused.size(), checked, "every refused option is one of perftest's");
    }

    @Test
    void gidIndexAbove64IsRefusedAsPerftestDoes() {
        usageError("'--gid-index' (-x): must be between 0 and 64, got 65", "send-lat", "-x", "65", "10.0.0.1");
    }

    @Test
    void retryCountHasPerftestsSpellingToo() {
        assertEquals(3, settings("write-bw", "--retry_count", "3", "10.0.0.1").retryCount());
        assertEquals(7, settings("write-bw", "10.0.0.1").retryCount(), "default");
    }

    @Test
    void pinCoresTakesPerftestsCpuLists() {
        assertEquals(List.of(1), settings("send-lat", "--pin_cores", "1").pinCpus());
        assertEquals(List.of(0, 1, 2, 3, 8), settings("write-bw", "--pin_cores", "8,0-3", "h").pinCpus());
        assertEquals(List.of(1), settings("send-lat", "--pin-cpu", "1").pinCpus(), "--pin-cpu is the one-CPU form");
        assertEquals(List.of(), settings("send-lat").pinCpus());
        for (String[] bad : new String[][] {{"3-1", "range 3-1 runs backwards"}, {"0,x", "'x' in '0,x' is not a CPU"},
                {"1024", "CPU 1024 does not exist"}, {"", "an empty CPU list"}}) {
            usageError("option '--pin_cores': " + bad[1], "send-lat", "--pin_cores=" + bad[0]);
        }
        usageError("options '--pin-cpu' and '--pin_cores' exclude each other", "send-lat", "--pin_cores", "0",
                "--pin-cpu", "0");
    }

    @Test
    void optionsAskingForWhatJrdmaDoesAnywayAreAccepted() {
        // They parse (a value where perftest takes one) and leave the settings as without them.
        assertEquals(settings("write-bw", "h"), settings("write-bw", "--no_enhanced_reorder", "--disable_pcie_relaxed", "h"));
        assertEquals(settings("send-lat", "h"), settings("send-lat", "--inline_recv", "64", "h"));
    }

    @Test
    void retryCountOtherThan7WithRdmaCmIsAUsageError() {
        usageError("rdma_cm's retry count 7", "write-bw", "-R", "--retry_count", "3", "10.0.0.1");
    }
}
