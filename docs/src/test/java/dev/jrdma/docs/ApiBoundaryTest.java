// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jrdma.NativeResource;
import java.io.IOException;
import java.lang.module.ModuleDescriptor;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.net.URISyntaxException;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The package line of the API module holds: what {@code dev.jrdma.cm} needs of the core goes
 * through the non-exported {@code dev.jrdma.internal}, the core names nothing of cm, and none of
 * it is reachable from another module. Compiles a small outside module against the
 * compiled API with javac, and reads the exported types by reflection.
 */
class ApiBoundaryTest {
    private static final String INTERNAL = "dev.jrdma.internal";

    /** Outside code that must not compile, each with the name javac's error must mention. */
    private static final Map<String, String[]> REFUSED = new LinkedHashMap<>();

    static {
        REFUSED.put("Bridge", new String[] {"dev.jrdma.internal",
            "Object bridge() { return dev.jrdma.internal.CoreAccess.get(); }"});
        REFUSED.put("Handle", new String[] {"handle",
            "Object handle(dev.jrdma.QueuePair qp) { return qp.handle(); }"});
        REFUSED.put("Hold", new String[] {"hold",
            "Object hold(dev.jrdma.Context c) { return dev.jrdma.NativeResource.hold(c); }"});
        REFUSED.put("CheckOpen", new String[] {"checkOpen",
            "void check(dev.jrdma.Context c) { c.checkOpen(); }"});
        REFUSED.put("RawHandle", new String[] {"rawHandle",
            "Object raw(dev.jrdma.cm.CmId id) { return id.rawHandle(); }"});
        REFUSED.put("Subclass", new String[] {"sealed",
            "static final class Mine extends dev.jrdma.NativeResource { protected void release() {} }"});
    }

    @Test
    void anOutsideModuleReachesNeitherTheBridgeNorTheBasesProtectedMembers(@TempDir Path dir) throws Exception {
        Path src = dir.resolve("src/outside");
        Files.createDirectories(src.resolve("app"));
        Files.writeString(src.resolve("module-info.java"), "module outside { requires dev.jrdma; }\n");
        List<Path> sources = new ArrayList<>(List.of(src.resolve("module-info.java")));
        // The control: the published API compiles, so a refusal below is about the member, not the set-up.
        sources.add(write(src, "Allowed", "void use(dev.jrdma.cm.CmId id, dev.jrdma.QueuePair qp) throws Exception {"
                + " id.close(); qp.close(); boolean closed = qp.isClosed(); }"));
        for (Map.Entry<String, String[]> e : REFUSED.entrySet()) {
            sources.add(write(src, e.getKey(), e.getValue()[1]));
        }
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (StandardJavaFileManager files = javac.getStandardFileManager(diagnostics, Locale.ROOT, null)) {
            List<String> options = List.of("-d", dir.resolve("out").toString(), "--module-path",
                    location(NativeResource.class) + java.io.File.pathSeparator
                            + location(dev.jrdma.bindings.generated.rdma_h.class),
                    "-proc:none", "-Xlint:none");
            javac.getTask(null, files, diagnostics, options, null, files.getJavaFileObjectsFromPaths(sources)).call();
        }
        Map<String, List<String>> errors = new LinkedHashMap<>();
        for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
            if (d.getKind() == Diagnostic.Kind.ERROR && d.getSource() != null) {
                String file = Path.of(d.getSource().toUri()).getFileName().toString().replace(".java", "");
                errors.computeIfAbsent(file, k -> new ArrayList<>()).add(d.getMessage(Locale.ROOT));
            }
        }
        assertEquals(null, errors.get("Allowed"), "the published API must compile from outside");
        assertEquals(null, errors.get("module-info"), "the outside module must resolve");
        for (Map.Entry<String, String[]> e : REFUSED.entrySet()) {
            List<String> refused = errors.get(e.getKey());
            assertTrue(refused != null && refused.stream().anyMatch(m -> m.contains(e.getValue()[0])),
                    e.getKey() + " compiled from outside the module, or failed for another reason: " + refused);
        }
    }

    @Test
    void noPublicOrProtectedMemberOfAnExportedTypeNamesAnInternalType() throws Exception {
        Path classes = apiClasses();
        ModuleDescriptor module;
        try (var in = Files.newInputStream(classes.resolve("module-info.class"))) {
            module = ModuleDescriptor.read(in);
        }
        Set<String> exported = module.exports().stream().filter(e -> !e.isQualified())
                .map(ModuleDescriptor.Exports::source).collect(Collectors.toCollection(TreeSet::new));
        assertEquals(Set.of("dev.jrdma", "dev.jrdma.cm", "dev.jrdma.rsocket"), exported);
        List<String> leaks = new ArrayList<>();
        int checked = 0;
        for (String pkg : exported) {
            for (Class<?> type : publicTypes(classes, pkg)) {
                checked++;
                for (Type t : type.getGenericInterfaces()) {
                    leak(leaks, type + " implements", t);
                }
                leak(leaks, type + " extends", type.getGenericSuperclass());
                for (Member m : visibleMembers(type)) {
                    switch (m) {
                        case Method method -> {
                            leak(leaks, method.toString(), method.getGenericReturnType());
                            params(leaks, method);
                        }
                        case Constructor<?> c -> params(leaks, c);
                        case Field f -> leak(leaks, f.toString(), f.getGenericType());
                        default -> { }
                    }
                }
            }
        }
        assertTrue(checked > 80, "expected the API's public types, found " + checked);
        assertEquals(List.of(), leaks);
    }

    @Test
    void theSealedBaseIsTheOnlyOpenTypeWithProtectedMembers() throws Exception {
        assertTrue(NativeResource.class.isSealed());
        for (Class<?> sub : NativeResource.class.getPermittedSubclasses()) {
            assertTrue(Modifier.isFinal(sub.getModifiers()) || !Modifier.isPublic(sub.getModifiers())
                    || sub.isSealed(), sub + " would let an application subclass the base");
        }
        // A protected member of a public class an application can extend would be API.
        List<String> open = new ArrayList<>();
        Path classes = apiClasses();
        for (String pkg : List.of("dev.jrdma", "dev.jrdma.cm", "dev.jrdma.rsocket")) {
            for (Class<?> type : publicTypes(classes, pkg)) {
                if (type == NativeResource.class || Modifier.isFinal(type.getModifiers()) || type.isSealed()) {
                    continue;
                }
                for (Member m : visibleMembers(type)) {
                    if (Modifier.isProtected(m.getModifiers()) && m.getDeclaringClass() != Object.class
                            && !Throwable.class.isAssignableFrom(m.getDeclaringClass())) {
                        open.add(m.toString());
                    }
                }
            }
        }
        assertEquals(List.of(), open);
    }

    /**
     * The connection manager builds on the verbs, never the other way round: no source file of
     * the core package names {@code dev.jrdma.cm} in its code (an import, a qualified name, a
     * permits clause). Javadoc may still point a reader to cm; comments are not code.
     */
    @Test
    void theCorePackageNamesNothingOfTheConnectionManager() throws IOException {
        Path core = Guide.ROOT.resolve("idiomatic-api/src/main/java/dev/jrdma");
        List<String> named = new ArrayList<>();
        int read = 0;
        try (Stream<Path> files = Files.list(core)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).sorted().toList()) {
                read++;
                String code = COMMENTS.matcher(Files.readString(file)).replaceAll(" ");
                if (CM.matcher(code).find()) {
                    named.add(file.getFileName().toString());
                }
            }
        }
        assertTrue(read > 80, "expected the core's sources, read " + read);
        assertEquals(List.of(), named, "these files of dev.jrdma name dev.jrdma.cm");
    }

    private static final Pattern COMMENTS = Pattern.compile("//[^\\n]*|/\\*.*?\\*/", Pattern.DOTALL);
    private static final Pattern CM = Pattern.compile("\\bdev\\s*\\.\\s*jrdma\\s*\\.\\s*cm\\b");

    private static Path write(Path src, String name, String body) throws IOException {
        Path file = src.resolve("app/" + name + ".java");
        Files.writeString(file, "package app;\nclass " + name + " {\n    " + body + "\n}\n");
        return file;
    }

    private static Path location(Class<?> type) throws URISyntaxException {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    /** The root of the compiled API: its target/classes, or the inside of its jar. */
    private static Path apiClasses() throws Exception {
        Path location = location(NativeResource.class);
        if (Files.isDirectory(location)) {
            return location;
        }
        FileSystem jar = FileSystems.newFileSystem(location);   // kept open: the test's classes are read lazily
        return jar.getPath("/");
    }

    private static List<Class<?>> publicTypes(Path classes, String pkg) throws Exception {
        List<Class<?>> types = new ArrayList<>();
        Path dir = classes.resolve(pkg.replace('.', '/'));
        try (Stream<Path> s = Files.list(dir)) {
            for (Path p : s.filter(f -> f.toString().endsWith(".class")).sorted().toList()) {
                String name = p.getFileName().toString().replace(".class", "");
                if (name.equals("package-info")) {
                    continue;
                }
                Class<?> type = Class.forName(pkg + "." + name, false, ApiBoundaryTest.class.getClassLoader());
                if (isVisible(type)) {
                    types.add(type);
                }
            }
        }
        return types;
    }

    /** Public, and nested only in public types. */
    private static boolean isVisible(Class<?> type) {
        for (Class<?> c = type; c != null; c = c.getDeclaringClass()) {
            if (!Modifier.isPublic(c.getModifiers()) && !(c != type && c.isInterface())) {
                return false;
            }
            if (c.isAnonymousClass() || c.isLocalClass()) {
                return false;
            }
        }
        return true;
    }

    /** The public and protected members an outside subclass or caller could see, inherited ones included. */
    private static List<Member> visibleMembers(Class<?> type) {
        List<Member> members = new ArrayList<>();
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Executable e : c.getDeclaredMethods()) {
                if ((e.getModifiers() & (Modifier.PUBLIC | Modifier.PROTECTED)) != 0 && !e.isSynthetic()) {
                    members.add(e);
                }
            }
            for (Executable e : c.getDeclaredConstructors()) {
                if ((e.getModifiers() & (Modifier.PUBLIC | Modifier.PROTECTED)) != 0) {
                    members.add(e);
                }
            }
            for (Field f : c.getDeclaredFields()) {
                if ((f.getModifiers() & (Modifier.PUBLIC | Modifier.PROTECTED)) != 0) {
                    members.add(f);
                }
            }
        }
        return members;
    }

    private static void params(List<String> leaks, Executable e) {
        for (Type t : e.getGenericParameterTypes()) {
            leak(leaks, e.toString(), t);
        }
        for (Type t : e.getGenericExceptionTypes()) {
            leak(leaks, e.toString(), t);
        }
    }

    private static void leak(List<String> leaks, String where, Type type) {
        if (type != null && type.getTypeName().contains(INTERNAL + ".")) {
            leaks.add(where + " names " + type.getTypeName());
        }
    }
}
