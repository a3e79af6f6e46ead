// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.bindings.shim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.bindings.generated.ibv_qp_ex;
import java.io.IOException;
import java.lang.foreign.MemoryLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The one-call extended post's machine code is what its listing says: GNU as assembles the
 * listing's text and its bytes must equal the hex the routine is written from, so a hand-made
 * encoding error (a wrong register, displacement or jump) fails here. binutils comes with the
 * gcc the stub provider's tests need. What the routine does with a provider is tested through
 * the stub provider (idiomatic-api's ConfinedExtendedSendTest and PreparedExtendedSendTest).
 */
class ExtendedPostTrampolineTest {
    @Test
    void theBytesAreWhatTheAssemblerMakesOfTheListing(@TempDir Path dir) throws Exception {
        Path source = assemble(dir);
        run(dir, "as", "--64", "-o", "post.o", source.toString());
        run(dir, "objcopy", "-O", "binary", "-j", ".text", "post.o", "post.bin");
        String assembled = HexFormat.of().formatHex(Files.readAllBytes(dir.resolve("post.bin")));
        assertEquals(assembled, HexFormat.of().formatHex(ExtendedPostTrampoline.code()),
                "the listing's bytes against GNU as's; objdump -d of post.o:\n" + run(dir, "objdump", "-d", "post.o"));
    }

    @Test
    void theListingStoresWrIdAndFlagsWhereTheGeneratedLayoutHasThem() {
        assertEquals(ibv_qp_ex.wr_id$offset(), ExtendedPostTrampoline.QP_EX_WR_ID);
        assertEquals(ibv_qp_ex.wr_flags$offset(), ExtendedPostTrampoline.QP_EX_WR_FLAGS);
        String text = ExtendedPostTrampoline.LISTING.stream().map(ExtendedPostTrampoline.Line::asm)
                .collect(Collectors.joining("\n"));
        assertTrue(text.contains("movups %xmm0, " + ExtendedPostTrampoline.QP_EX_WR_ID + "(%rdi)"), text);
        // The 16 bytes from wr_id hold wr_id, wr_flags and padding only: the next member begins after them.
        assertEquals(ExtendedPostTrampoline.QP_EX_WR_ID + 8, ExtendedPostTrampoline.QP_EX_WR_FLAGS);
        assertEquals(ExtendedPostTrampoline.QP_EX_WR_ID + 16, ExtendedPostTrampoline.QP_EX_AFTER_FLAGS);
        long offset = 0;
        String after = null;
        long afterOffset = -1;
        for (MemoryLayout member : ibv_qp_ex.layout().memberLayouts()) {
            if (offset > ExtendedPostTrampoline.QP_EX_WR_FLAGS && member.name().isPresent() && after == null) {
                after = member.name().get();
                afterOffset = offset;
            }
            offset += member.byteSize();
        }
        assertEquals("wr_atomic_cmp_swp", after, "the member after wr_flags");
        assertEquals(ExtendedPostTrampoline.QP_EX_AFTER_FLAGS, afterOffset, "where the member after wr_flags begins");
        assertEquals(ExtendedPostTrampoline.QP_EX_AFTER_FLAGS, ibv_qp_ex.wr_atomic_cmp_swp$offset());
    }

    /** The slots the widest routine loads are the block's offsets (8 bytes each, in order); the entry jumps through ROUTINE_AT. */
    @Test
    void theListingReadsTheBlockAtItsOffsets() {
        String text = ExtendedPostTrampoline.variant(4, 3, true).stream().map(ExtendedPostTrampoline.Line::asm)
                .collect(Collectors.joining("\n"));
        for (String load : List.of("call *" + ExtendedPostTrampoline.START_AT + "(%rbx)",
                "movups " + ExtendedPostTrampoline.WR_ID_AT + "(%rbx), %xmm0",
                "mov " + ExtendedPostTrampoline.OPERATION_ARGS_AT + "(%rbx), %rsi",
                "mov " + (ExtendedPostTrampoline.OPERATION_ARGS_AT + 24) + "(%rbx), %r8",
                "call *" + ExtendedPostTrampoline.OPERATION_AT + "(%rbx)",
                "call *" + ExtendedPostTrampoline.DATA_AT + "(%rbx)",
                "mov " + (ExtendedPostTrampoline.DATA_ARGS_AT + 16) + "(%rbx), %rcx",
                "call *" + ExtendedPostTrampoline.UD_AT + "(%rbx)",
                "mov " + (ExtendedPostTrampoline.UD_ARGS_AT + 16) + "(%rbx), %rcx",
                "mov " + ExtendedPostTrampoline.COMPLETE_AT + "(%rbx), %rax")) {
            assertTrue(text.contains(load), load);
        }
        assertEquals(List.of("jmp *" + ExtendedPostTrampoline.ROUTINE_AT + "(%rdi)"),
                ExtendedPostTrampoline.ENTRY.stream().map(ExtendedPostTrampoline.Line::asm).toList());
        assertEquals(ExtendedPostTrampoline.ROUTINE_AT + 8, ExtendedPostTrampoline.BLOCK_SIZE);
        assertEquals(ExtendedPostTrampoline.WR_ID_AT + 8, ExtendedPostTrampoline.WR_FLAGS_AT, "the 16 bytes copied");
    }

    /**
     * Each routine loads exactly its builder's and data setter's argument slots and has a UD
     * step only on UD (the SEND of one SGE on RC: 17 instructions), and starts where
     * {@code routine} says: the assembler's symbol for its label.
     */
    @Test
    void everyVariantTakesWhatItsShapeNeedsAndStartsWhereRoutineSays(@TempDir Path dir) throws Exception {
        run(dir, "as", "--64", "-o", "post.o", assemble(dir).toString());
        String symbols = run(dir, "nm", "post.o");
        for (int n = 0; n <= ExtendedPostTrampoline.MAX_OPERATION_ARGS; n++) {
            for (int d : new int[] {0, 2, 3}) {
                for (boolean ud : new boolean[] {false, true}) {
                    List<String> asm = ExtendedPostTrampoline.variant(n, d, ud).stream()
                            .filter(l -> !l.hex().isEmpty()).map(ExtendedPostTrampoline.Line::asm).toList();
                    String what = n + " builder, " + d + " data arguments, ud " + ud;
                    assertEquals(n, asm.stream().filter(a -> a.matches("mov (40|48|56|64)\\(%rbx\\), .*")).count(), what);
                    assertEquals(d, asm.stream().filter(a -> a.matches("mov (80|88|96)\\(%rbx\\), .*")).count(), what);
                    assertEquals(d > 0, asm.contains("call *72(%rbx)"), what);
                    assertEquals(ud, asm.contains("call *104(%rbx)"), what);
                    assertEquals(12 + n + (d > 0 ? d + 2 : 0) + (ud ? 5 : 0), asm.size(), what);
                    String label = String.format("%016x t post_%d_%d_%s", ExtendedPostTrampoline.offset(n, d, ud), n, d,
                            ud ? "ud" : "rc");
                    assertTrue(symbols.contains(label), label + " in\n" + symbols);
                }
            }
        }
        assertEquals(17, ExtendedPostTrampoline.variant(0, 3, false).stream().filter(l -> !l.hex().isEmpty()).count());
        assertThrows(IllegalArgumentException.class, () -> ExtendedPostTrampoline.routine(0, 1, false));
        assertThrows(IllegalArgumentException.class, () -> ExtendedPostTrampoline.routine(5, 0, false));
    }

    private static Path assemble(Path dir) throws IOException {
        String text = ExtendedPostTrampoline.LISTING.stream().map(ExtendedPostTrampoline.Line::asm)
                .collect(Collectors.joining("\n", ".text\n", "\n"));
        return Files.writeString(dir.resolve("post.s"), text);
    }

    /** On this host (x86-64 Linux, the build's) the routine must be in use, not silently the fallback. */
    @Test
    void theRoutineIsUsedOnX8664Linux() {
        String arch = System.getProperty("os.arch");
        boolean x86 = arch.equals("amd64") || arch.equals("x86_64");
        if (x86 && System.getProperty("os.name").equals("Linux")
                && !"false".equals(System.getProperty("jrdma.extendedPost.trampoline"))) {
            assertNull(ExtendedPostTrampoline.unavailable());
            assertTrue(ExtendedPostTrampoline.available());
        }
    }

    private static String run(Path dir, String... command) throws IOException, InterruptedException {
        Process p;
        try {
            p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new IllegalStateException(command[0] + " (binutils) is needed to check the listing: install"
                    + " binutils (it comes with gcc, which the stub provider's tests need)", e);
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), command[0] + " finished");
        assertEquals(0, p.exitValue(), String.join(" ", command) + ":\n" + out);
        return out;
    }
}
