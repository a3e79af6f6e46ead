// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.bindings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.jrdma.bindings.generated.rdma_h;
import java.io.IOException;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemoryLayout.PathElement;
import java.lang.foreign.PaddingLayout;
import java.lang.foreign.SequenceLayout;
import java.lang.foreign.StructLayout;
import java.lang.foreign.UnionLayout;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestReporter;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checks the jextract layouts against what gcc says about the real headers on this host.
 *
 * <p>The generated layouts were computed by libclang from rdma-core 44 headers when the code
 * was generated; every accessor and every shim that reads a struct through them trusts those
 * numbers blindly. A header-version drift or a jextract bug (wrong padding, a lost anonymous
 * union, a mis-sized enum) would not crash, it would silently read the neighbouring field. So
 * each generated struct/union is walked member by member and compared with
 * {@code offsetof}/{@code sizeof} from a small C probe compiled against the installed headers.
 * The integer constants of {@code rdma_h} are compared the same way.
 */
class LayoutTest {

    private static final String GENERATED_PACKAGE = "dev.jrdma.bindings.generated";

    /**
     * Types the shims and the idiomatic API read or write directly. Every generated type is
     * checked anyway; this list only guards against discovery silently finding nothing (or a
     * regeneration dropping one of these from includes.txt).
     */
    private static final List<String> REQUIRED_TYPES = List.of(
            "ibv_context", "ibv_context_ops", "verbs_context", "ibv_device", "ibv_pd", "ibv_mr",
            "ibv_qp", "ibv_qp_ex", "ibv_cq", "ibv_cq_ex", "ibv_srq", "ibv_comp_channel",
            "ibv_send_wr", "ibv_recv_wr", "ibv_sge", "ibv_wc", "ibv_qp_attr", "ibv_qp_init_attr",
            "ibv_qp_init_attr_ex", "ibv_qp_cap", "ibv_port_attr", "ibv_device_attr",
            "ibv_device_attr_ex", "ibv_query_device_ex_input", "ibv_cq_init_attr_ex", "ibv_gid",
            "ibv_gid_entry", "ibv_ah_attr", "ibv_global_route", "ibv_ah", "ibv_async_event",
            "ibv_srq_init_attr", "ibv_mw", "ibv_mw_bind", "ibv_mw_bind_info", "ibv_xrcd",
            "rdma_cm_id", "rdma_cm_event", "rdma_conn_param", "rdma_ud_param",
            "rdma_event_channel", "rdma_addr", "rdma_route", "rdma_addrinfo", "sockaddr_in",
            "sockaddr_in6", "sockaddr_storage");

    /**
     * Members reached only through anonymous or nested records, which are the part of the walk
     * most likely to go wrong. C designators, per generated class.
     */
    private static final Map<String, List<String>> REQUIRED_MEMBERS = Map.of(
            "ibv_send_wr", List.of("imm_data", "invalidate_rkey",
                    "wr.rdma.remote_addr", "wr.rdma.rkey",
                    "wr.atomic.remote_addr", "wr.atomic.compare_add", "wr.atomic.swap", "wr.atomic.rkey",
                    "wr.ud.ah", "wr.ud.remote_qpn", "wr.ud.remote_qkey",
                    "qp_type.xrc.remote_srqn", "bind_mw.mw", "bind_mw.rkey", "bind_mw.bind_info.mr",
                    "tso.hdr", "tso.hdr_sz", "tso.mss"),
            "ibv_wc", List.of("imm_data", "invalidated_rkey"),
            // verbs_get_ctx_op() finds the verbs_context by subtracting offsetof(context) from the
            // ibv_context pointer and bounds-checks ops against sz, so both offsets are ABI.
            "verbs_context", List.of("context", "sz", "create_cq_ex", "query_device_ex", "create_qp_ex"),
            "ibv_async_event", List.of("element.cq", "element.qp", "element.port_num", "event_type"),
            "rdma_addr", List.of("src_addr", "src_sin", "src_sin6", "dst_addr", "addr.ibaddr.sgid"));

    /** Constants the shims use by name (all integral constants are checked, these must exist). */
    private static final List<String> REQUIRED_CONSTANTS = List.of(
            "EINVAL", "ENOSYS", "EOPNOTSUPP", "IBV_QP_STATE", "IBV_SEND_SIGNALED", "IBV_WC_SUCCESS",
            "IBV_WR_RDMA_WRITE", "IBV_ACCESS_REMOTE_WRITE", "IBV_ACCESS_OPTIONAL_RANGE",
            "IBV_QP_INIT_ATTR_PD", "IBV_CQ_INIT_ATTR_MASK_PD", "IBV_WC_EX_WITH_IMM",
            "IBV_QP_EX_WITH_RDMA_WRITE");

    // ---------------------------------------------------------------------------------------
    // Tests

    @Test
    @DisplayName("every type the shims rely on is generated and discovered")
    void requiredTypesAreDiscovered() {
        Set<String> found = discoverTypes().stream().map(CType::className).collect(Collectors.toSet());
        List<String> missing = REQUIRED_TYPES.stream().filter(t -> !found.contains(t)).toList();
        assertTrue(missing.isEmpty(), () -> "generated struct classes not found in " + GENERATED_PACKAGE
                + ": " + missing + " (discovered " + found.size() + " types)");
    }

    @Test
    @DisplayName("members behind anonymous and nested records are reached by the walk")
    void requiredMembersAreWalked() {
        Map<String, CType> byName = discoverTypes().stream()
                .collect(Collectors.toMap(CType::className, t -> t));
        List<String> missing = new ArrayList<>();
        REQUIRED_MEMBERS.forEach((cls, designators) -> {
            CType type = byName.get(cls);
            Set<String> walked = type == null ? Set.of()
                    : members(type.layout()).stream().map(Member::designator).collect(Collectors.toSet());
            designators.stream().filter(d -> !walked.contains(d)).map(d -> cls + "." + d).forEach(missing::add);
        });
        assertTrue(missing.isEmpty(), () -> "members not produced by the layout walk: " + missing);
    }

    @Test
    @DisplayName("every constant the shims rely on is generated")
    void requiredConstantsExist() {
        Set<String> found = constants().stream().map(Constant::name).collect(Collectors.toSet());
        List<String> missing = REQUIRED_CONSTANTS.stream().filter(c -> !found.contains(c)).toList();
        assertTrue(missing.isEmpty(), () -> "constants not found in rdma_h: " + missing);
    }

    /**
     * One gcc run for everything; one dynamic test per type (plus one for the constants) so a
     * failure names the broken struct directly.
     */
    @TestFactory
    @DisplayName("generated layouts and constants match gcc on the installed headers")
    Stream<DynamicNode> layoutsMatchC(@TempDir Path dir, TestReporter reporter) throws Exception {
        List<CType> types = discoverTypes();
        List<Constant> constants = constants();

        Probe probe = new Probe();
        Map<CType, List<Check>> typeChecks = new HashMap<>();
        int memberCount = 0;
        for (CType type : types) {
            List<Check> checks = new ArrayList<>();
            GroupLayout l = type.layout();
            checks.add(probe.add(type.cName(), "sizeof", "sizeof(" + type.cName() + ")", l.byteSize(), 64));
            checks.add(probe.add(type.cName(), "_Alignof", "_Alignof(" + type.cName() + ")", l.byteAlignment(), 64));
            for (Member m : members(l)) {
                memberCount++;
                String what = m.designator() + (m.layoutPath().equals(m.designator()) ? "" : " [" + m.layoutPath() + "]");
                checks.add(probe.add(type.cName(), what + " offset",
                        "offsetof(" + type.cName() + ", " + m.designator() + ")", m.offset(), 64));
                // sizeof on a flexible array member (the ib_uverbs_* driver_data[]) does not
                // compile; jextract models it as a 0-element sequence, so only its offset is checked.
                if (!m.flexibleArray()) {
                    checks.add(probe.add(type.cName(), what + " size",
                            "sizeof(((" + type.cName() + " *)0)->" + m.designator() + ")", m.size(), 64));
                }
            }
            typeChecks.put(type, checks);
        }
        List<Check> constantChecks = new ArrayList<>();
        for (Constant c : constants) {
            constantChecks.add(probe.add("rdma_h", c.name(), c.name(), c.value(), c.bits()));
        }

        long t0 = System.nanoTime();
        Map<Integer, Long> actual = probe.compileAndRun(dir);
        reporter.publishEntry("layout-probe", "%d types, %d members, %d constants, %d checks; gcc+run %d ms"
                .formatted(types.size(), memberCount, constants.size(), probe.size(),
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)));

        Stream<DynamicNode> typeTests = types.stream().map(type -> DynamicTest.dynamicTest(
                type.cName() + " (" + type.className() + ")", () -> assertMatches(type.cName(), typeChecks.get(type), actual)));
        DynamicNode constantTest = DynamicTest.dynamicTest("rdma_h integral constants",
                () -> assertMatches("rdma_h", constantChecks, actual));
        return Stream.of(DynamicContainer.dynamicContainer("types", typeTests), constantTest);
    }

    private static void assertMatches(String owner, List<Check> checks, Map<Integer, Long> actual) {
        List<String> diffs = new ArrayList<>();
        for (Check c : checks) {
            Long cValue = actual.get(c.id());
            if (cValue == null) {
                diffs.add("  " + c.what() + ": no output from the probe for " + c.cExpr());
            } else if (!c.matches(cValue)) {
                diffs.add("  %s.%s: jextract=%d C=%d".formatted(c.owner(), c.what(), c.expected(), cValue));
            }
        }
        if (!diffs.isEmpty()) {
            fail(owner + ": " + diffs.size() + " of " + checks.size()
                    + " checks differ between the generated code (jextract) and gcc on the installed headers (C):\n"
                    + String.join("\n", diffs));
        }
    }

    // ---------------------------------------------------------------------------------------
    // Discovery of generated types and constants

    /** A generated top-level struct/union class and the C type it stands for. */
    record CType(String className, String cName, GroupLayout layout) {}

    /**
     * Every top-level class of the generated package with a static {@code GroupLayout layout()},
     * found by listing the compiled package (a fixed list would miss new types after a
     * regeneration).
     */
    static List<CType> discoverTypes() {
        List<CType> types = new ArrayList<>();
        for (String simpleName : generatedClassNames()) {
            Class<?> cls;
            try {
                cls = Class.forName(GENERATED_PACKAGE + "." + simpleName, false, LayoutTest.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new AssertionError(e);
            }
            Method layoutMethod;
            try {
                layoutMethod = cls.getMethod("layout");
            } catch (NoSuchMethodException e) {
                continue; // rdma_h, function-pointer typedefs
            }
            if (!Modifier.isStatic(layoutMethod.getModifiers())
                    || !GroupLayout.class.isAssignableFrom(layoutMethod.getReturnType())) {
                continue;
            }
            GroupLayout layout;
            try {
                layout = (GroupLayout) layoutMethod.invoke(null);
            } catch (ReflectiveOperationException e) {
                throw new AssertionError("cannot get " + cls.getName() + ".layout()", e);
            }
            types.add(new CType(simpleName, cTypeName(cls, layout), layout));
        }
        types.sort((a, b) -> a.className().compareTo(b.className()));
        return types;
    }

    /**
     * jextract names a record class after its tag and names the layout after the tag too, so
     * {@code struct X} and {@code union X} are recognised by layout name and kind. A typedef
     * becomes its own class: for a typedef of an anonymous record ({@code pthread_mutex_t}) the
     * layout carries the {@code $anon$line:col} name, and for a typedef of a tagged record
     * ({@code __pthread_list_t}) the class extends the tagged one. Both are spelled by the
     * typedef name in C.
     */
    private static String cTypeName(Class<?> cls, GroupLayout layout) {
        String name = cls.getSimpleName();
        boolean typedef = cls.getSuperclass() != Object.class
                || layout.name().map(LayoutTest::isAnonymous).orElse(true);
        if (typedef) {
            return name;
        }
        if (!layout.name().orElseThrow().equals(name)) {
            throw new AssertionError("cannot map " + cls.getName() + " (layout " + layout + ") to a C type");
        }
        return (layout instanceof UnionLayout ? "union " : "struct ") + name;
    }

    private static List<String> generatedClassNames() {
        Path root;
        try {
            root = Path.of(rdma_h.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new AssertionError(e);
        }
        String pkgDir = GENERATED_PACKAGE.replace('.', '/');
        try {
            if (Files.isDirectory(root)) {
                return classNamesIn(root.resolve(pkgDir));
            }
            try (FileSystem jar = FileSystems.newFileSystem(root)) {
                return classNamesIn(jar.getPath(pkgDir));
            }
        } catch (IOException e) {
            throw new AssertionError("cannot list " + pkgDir + " in " + root, e);
        }
    }

    private static List<String> classNamesIn(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString())
                    .filter(f -> f.endsWith(".class") && !f.contains("$")) // nested classes come with their parent
                    .map(f -> f.substring(0, f.length() - ".class".length()))
                    .sorted()
                    .toList();
        }
    }

    /** An integral macro or enum constant of rdma_h, with the width of its Java type. */
    record Constant(String name, long value, int bits) {}

    /**
     * jextract emits each constant as a {@code private static final int|long NAME} field with
     * a public getter {@code NAME()}. Functions never have such a field, so zero-argument
     * functions like {@code rdma_create_event_channel()} are not called by accident.
     */
    static List<Constant> constants() {
        List<Constant> result = new ArrayList<>();
        for (Field f : rdma_h.class.getDeclaredFields()) {
            int mod = f.getModifiers();
            Class<?> t = f.getType();
            if (!Modifier.isStatic(mod) || !Modifier.isFinal(mod) || (t != int.class && t != long.class)) {
                continue;
            }
            try {
                Method getter = rdma_h.class.getMethod(f.getName());
                if (getter.getReturnType() != t || !Modifier.isStatic(getter.getModifiers())) {
                    continue;
                }
                long value = ((Number) getter.invoke(null)).longValue();
                result.add(new Constant(f.getName(), value, t == int.class ? 32 : 64));
            } catch (NoSuchMethodException e) {
                // not a constant
            } catch (ReflectiveOperationException e) {
                throw new AssertionError("cannot read rdma_h." + f.getName() + "()", e);
            }
        }
        result.sort((a, b) -> a.name().compareTo(b.name()));
        return result;
    }

    // ---------------------------------------------------------------------------------------
    // Layout walk

    /**
     * A member reachable from a top-level type, with its C member designator ({@code a.b.c})
     * and the jextract path it came from.
     */
    record Member(String designator, String layoutPath, long offset, long size, boolean flexibleArray) {}

    /** jextract names anonymous records {@code $anon$<line>:<column>}; C code never names them. */
    private static boolean isAnonymous(String name) {
        return name.startsWith("$anon$");
    }

    /**
     * Every named member, recursively: named nested records are reported themselves and then
     * descended into; anonymous ones only descended into, since in C their members belong to
     * the enclosing record. Arrays are one member (no per-element walk); padding is skipped.
     */
    static List<Member> members(GroupLayout root) {
        List<Member> out = new ArrayList<>();
        walk(root, root, new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), out);
        return out;
    }

    private static void walk(GroupLayout root, GroupLayout group, List<PathElement> path,
                             List<String> cPath, List<String> layoutPath, List<Member> out) {
        List<MemoryLayout> members = group.memberLayouts();
        for (int i = 0; i < members.size(); i++) {
            MemoryLayout m = members.get(i);
            if (m instanceof PaddingLayout) {
                continue;
            }
            String name = m.name().orElse("$anon$");
            // Offsets come from the same byteOffset(path) call the generated xxx$offset() use.
            path.add(PathElement.groupElement(i));
            layoutPath.add(name);
            boolean anonymous = isAnonymous(name);
            if (!anonymous) {
                cPath.add(name);
                boolean flex = m instanceof SequenceLayout s && s.elementCount() == 0;
                out.add(new Member(String.join(".", cPath), String.join(".", layoutPath),
                        root.byteOffset(path.toArray(PathElement[]::new)), m.byteSize(), flex));
            } else if (!(m instanceof StructLayout || m instanceof UnionLayout)) {
                throw new AssertionError("anonymous non-record member " + m + " in " + root);
            }
            if (m instanceof GroupLayout g) {
                walk(root, g, path, cPath, layoutPath, out);
            }
            if (!anonymous) {
                cPath.removeLast();
            }
            layoutPath.removeLast();
            path.removeLast();
        }
    }

    // ---------------------------------------------------------------------------------------
    // The C probe

    /** One number the probe prints and the value the generated code expects for it. */
    record Check(int id, String owner, String what, String cExpr, long expected, int bits) {
        /**
         * An int constant is compared as the 32-bit pattern Java holds: C enums above
         * INT_MAX (1u << 31 flags) are unsigned there and negative in Java, which is the
         * same bits. A C value that does not fit in 32 bits at all is still a mismatch.
         */
        boolean matches(long cValue) {
            if (bits == 64) {
                return cValue == expected;
            }
            return cValue >= Integer.MIN_VALUE && cValue <= 0xFFFF_FFFFL && (int) cValue == (int) expected;
        }
    }

    private static final class Probe {
        private final List<Check> checks = new ArrayList<>();

        Check add(String owner, String what, String cExpr, long expected, int bits) {
            Check c = new Check(checks.size(), owner, what, cExpr, expected, bits);
            checks.add(c);
            return c;
        }

        int size() {
            return checks.size();
        }

        String source() {
            StringBuilder sb = new StringBuilder("""
                    /* Generated by dev.jrdma.bindings.LayoutTest. */
                    #include <stddef.h>
                    #include <stdio.h>
                    #include <infiniband/verbs.h>
                    #include <rdma/rdma_cma.h>
                    #include <rdma/rsocket.h>

                    #define P(id, expr) printf("%d %lld\\n", id, (long long) (expr))

                    int main(void)
                    {
                    """);
            String owner = null;
            for (Check c : checks) {
                if (!c.owner().equals(owner)) {
                    owner = c.owner();
                    sb.append("    /* ").append(owner).append(" */\n");
                }
                sb.append("    P(").append(c.id()).append(", ").append(c.cExpr()).append(");\n");
            }
            return sb.append("    return 0;\n}\n").toString();
        }

        /** Compiles and runs the probe; returns check id to the value C printed. */
        Map<Integer, Long> compileAndRun(Path dir) throws IOException, InterruptedException {
            Path src = dir.resolve("layout_probe.c");
            Path exe = dir.resolve("layout_probe");
            Files.writeString(src, source());

            Result gcc;
            try {
                gcc = run(List.of("gcc", "-std=gnu11", "-O0", "-o", exe.toString(), src.toString()));
            } catch (IOException e) {
                return fail("gcc is needed to check the generated layouts against the C headers but could not be run ("
                        + e.getMessage() + "). Install gcc, libibverbs-dev and librdmacm-dev "
                        + "(scripts/setup does this), e.g. apt-get install gcc libc6-dev libibverbs-dev librdmacm-dev");
            }
            if (gcc.exitCode() != 0) {
                String hint = gcc.output().contains("No such file or directory")
                        ? "The rdma-core headers seem to be missing: install libibverbs-dev and librdmacm-dev "
                          + "(scripts/setup does this).\n"
                        : "";
                return fail(hint + "gcc failed (exit " + gcc.exitCode() + ") on the layout probe:\n"
                        + firstLines(gcc.output(), 80));
            }

            Result probe = run(List.of(exe.toString()));
            assertEquals(0, probe.exitCode(), () -> "layout probe failed:\n" + firstLines(probe.output(), 40));
            Map<Integer, Long> values = new HashMap<>();
            for (String line : probe.output().split("\n")) {
                if (line.isBlank()) {
                    continue;
                }
                String[] parts = line.trim().split(" ");
                values.put(Integer.parseInt(parts[0]), Long.parseLong(parts[1]));
            }
            return values;
        }

        private record Result(int exitCode, String output) {}

        private static Result run(List<String> command) throws IOException, InterruptedException {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            p.getOutputStream().close();
            String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(5, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                fail("timed out: " + command);
            }
            return new Result(p.exitValue(), output);
        }

        private static String firstLines(String s, int n) {
            List<String> lines = s.lines().toList();
            return lines.stream().limit(n).collect(Collectors.joining("\n"))
                    + (lines.size() > n ? "\n... (" + (lines.size() - n) + " more lines)" : "");
        }
    }
}
