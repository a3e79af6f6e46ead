// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.docs;

import dev.jrdma.Reaches;
import java.io.IOException;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * The {@link Reaches} annotations of the API, read by reflection from every class of the
 * module that holds {@code dev.jrdma.Reaches} (its target/classes or its jar): the API member
 * an application calls for each rdma-core function.
 */
final class ReachesScan {
    private ReachesScan() {}

    /**
     * {@return for each function named by a {@code @Reaches}, the members that reach it, e.g.
     * {@code QueuePair#post}, sorted} A resource's {@code release()} is shown as {@code close}:
     * {@code close()} is final in the base class and only calls it.
     */
    static Map<String, SortedSet<String>> scan() throws IOException {
        Map<String, SortedSet<String>> out = new TreeMap<>();
        for (Class<?> type : apiClasses()) {
            String owner = type.getName().substring(type.getPackageName().length() + 1).replace('$', '.');
            List<AnnotatedElement> elements = new ArrayList<>();
            elements.add(type);
            Collections.addAll(elements, type.getDeclaredConstructors());
            Collections.addAll(elements, type.getDeclaredMethods());
            Collections.addAll(elements, type.getDeclaredFields());
            for (AnnotatedElement e : elements) {
                Reaches reaches = e.getAnnotation(Reaches.class);
                if (reaches == null) {
                    continue;
                }
                String member = switch (e) {
                    case Class<?> c -> owner;
                    case Constructor<?> c -> "new " + owner;
                    case Method m -> owner + "#" + (m.getName().equals("release") ? "close" : m.getName());
                    case Field f -> owner + "#" + f.getName();
                    default -> throw new IllegalStateException(e.toString());
                };
                for (String function : reaches.value()) {
                    out.computeIfAbsent(function, f -> new TreeSet<>()).add(member);
                }
            }
        }
        return out;
    }

    /** Every class in the code source of {@link Reaches}, loaded without initialising it. */
    private static List<Class<?>> apiClasses() throws IOException {
        Path location;
        try {
            location = Path.of(Reaches.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IOException(e);
        }
        if (Files.isDirectory(location)) {
            return classesUnder(location);
        }
        try (FileSystem jar = FileSystems.newFileSystem(URI.create("jar:" + location.toUri()), Map.of())) {
            return classesUnder(jar.getPath("/"));
        }
    }

    private static List<Class<?>> classesUnder(Path root) throws IOException {
        List<String> names;
        try (Stream<Path> s = Files.walk(root)) {
            names = s.map(p -> root.relativize(p).toString())
                    .filter(n -> n.endsWith(".class") && !n.endsWith("module-info.class") && n.startsWith("dev/"))
                    .map(n -> n.substring(0, n.length() - ".class".length()).replace('/', '.'))
                    .sorted().toList();
        }
        List<Class<?>> out = new ArrayList<>();
        for (String name : names) {
            try {
                out.add(Class.forName(name, false, Reaches.class.getClassLoader()));
            } catch (ClassNotFoundException e) {
                throw new IOException("listed but not loadable: " + name, e);
            }
        }
        return out;
    }
}
