// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.docs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The {@code @Exercises} annotations (test-support's {@code dev.jrdma.testing.Exercises}) on the
 * tests of every module, read from the sources: the docs module cannot load the other modules'
 * test classes, and the sources are what a reviewer reads anyway.
 *
 * <p>The reader understands what the annotation allows in practice: {@code @Exercises("f")},
 * {@code @Exercises({"f", "g"})}, {@code @Exercises(value = {...}, refused = "why" + "more")},
 * and {@code kernel = "6.12"}, with string literals only (a constant would need the compiler; the
 * scan rejects it by name).
 * A test that also carries {@code @EveryKernel}, on the method or on its class, runs on every
 * kernel CI boots.
 */
final class ExercisesScan {
    /**
     * One annotation on a test method (or class): what it exercises, whether it asserts a refusal,
     * on which kernel the state holds ({@code ""}: every kernel the test runs on), and whether CI
     * runs the test on every kernel.
     */
    record Exercise(Path file, String className, String member, List<String> functions, String refused,
            String kernel, boolean everyKernel) {
        /** {@return e.g. {@code RcLoopbackDeviceTest#sendAndReceiveHello}} */
        String name() {
            return member.isEmpty() ? className : className + "#" + member;
        }

        boolean isRefusal() {
            return !refused.isEmpty();
        }
    }

    private static final Pattern ANNOTATION = Pattern.compile("@(?:dev\\.jrdma\\.testing\\.)?Exercises\\s*\\(");
    private static final Pattern EVERY_KERNEL = Pattern.compile("@(?:dev\\.jrdma\\.testing\\.)?EveryKernel\\b");
    private static final Pattern TYPE_DECLARATION = Pattern.compile("\\b(?:class|interface|record|enum)\\s+(\\w+)");
    private static final Pattern ANNOTATION_NAME = Pattern.compile("@[\\w.]+\\s*");
    private static final Pattern LAST_NAME = Pattern.compile("(\\w+)\\s*$");
    private static final Pattern TOKEN = Pattern.compile("\\s*(\"(?:[^\"\\\\]|\\\\.)*\"|[A-Za-z_]\\w*|[{}=,+])");

    private ExercisesScan() {}

    /** {@return every @Exercises of the tests under ROOT/MODULE/src/test/java, in file order} */
    static List<Exercise> scan(Path root) throws IOException {
        List<Path> files;
        try (Stream<Path> modules = Files.list(root)) {
            files = modules.map(m -> m.resolve("src/test/java")).filter(Files::isDirectory)
                    .flatMap(ExercisesScan::javaFiles).sorted(Comparator.comparing(Path::toString)).toList();
        }
        List<Exercise> out = new ArrayList<>();
        for (Path file : files) {
            out.addAll(scanFile(root.relativize(file), Files.readString(file)));
        }
        return out;
    }

    private static Stream<Path> javaFiles(Path dir) {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(p -> p.toString().endsWith(".java")).toList().stream();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** The @Exercises of one source file ({@code file} relative to the repository root). */
    static List<Exercise> scanFile(Path file, String source) {
        String code = Sources.withoutComments(source);
        String shape = Sources.withoutStringContents(code);
        String className = file.getFileName().toString().replaceFirst("\\.java$", "");
        boolean classEveryKernel = EVERY_KERNEL.matcher(classAnnotations(shape, className)).find();
        List<Exercise> out = new ArrayList<>();
        Matcher m = ANNOTATION.matcher(shape);
        while (m.find()) {
            int open = m.end() - 1;
            int close = Sources.matching(shape, open);
            String where = file + ":" + Sources.line(source, m.start());
            Map<String, String> attributes = new HashMap<>();
            List<String> functions = new ArrayList<>();
            arguments(code.substring(open + 1, close), functions, attributes, where);
            // The member: skip the annotations that follow, then a type or a method declaration.
            int at = close + 1;
            while (true) {
                while (at < shape.length() && Character.isWhitespace(shape.charAt(at))) {
                    at++;
                }
                if (at >= shape.length() || shape.charAt(at) != '@') {
                    break;
                }
                Matcher name = ANNOTATION_NAME.matcher(shape).region(at, shape.length());
                if (!name.lookingAt()) {
                    break;
                }
                at = name.end();
                if (at < shape.length() && shape.charAt(at) == '(') {
                    at = Sources.matching(shape, at) + 1;
                }
            }
            int end = at;
            while (end < shape.length() && shape.charAt(end) != '(' && shape.charAt(end) != '{'
                    && shape.charAt(end) != ';') {
                end++;
            }
            String declaration = shape.substring(at, end);
            Matcher type = TYPE_DECLARATION.matcher(declaration);
            String member;
            if (type.find()) {
                member = "";
            } else {
                Matcher method = LAST_NAME.matcher(declaration);
                if (end >= shape.length() || shape.charAt(end) != '(' || !method.find()) {
                    throw new IllegalStateException(where + ": @Exercises is on neither a method nor a class");
                }
                member = method.group(1);
            }
            String annotations = shape.substring(Sources.memberStart(shape, m.start()), end);
            boolean everyKernel = classEveryKernel || EVERY_KERNEL.matcher(annotations).find();
            out.add(new Exercise(file, className, member, List.copyOf(functions),
                    attributes.getOrDefault("refused", ""), attributes.getOrDefault("kernel", ""), everyKernel));
        }
        return out;
    }

    /** The annotations before the top-level class declaration of the file. */
    private static String classAnnotations(String shape, String className) {
        Matcher type = Pattern.compile("\\b(?:class|interface|record|enum)\\s+" + Pattern.quote(className) + "\\b")
                .matcher(shape);
        if (!type.find()) {
            return "";
        }
        return shape.substring(Sources.memberStart(shape, type.start()), type.start());
    }

    /**
     * Parses the annotation's arguments: the functions into {@code functions}, the string
     * attributes ({@code refused}, {@code kernel}) into {@code attributes}, stripped.
     */
    private static void arguments(String args, List<String> functions, Map<String, String> attributes,
            String where) {
        List<String> tokens = new ArrayList<>();
        Matcher t = TOKEN.matcher(args);
        int at = 0;
        while (at < args.length() && t.find(at) && t.start() == at) {
            tokens.add(t.group(1));
            at = t.end();
        }
        if (!args.substring(at).isBlank()) {
            throw new IllegalStateException(where + ": @Exercises(" + args.strip()
                    + ") is not made of string literals (the coverage page reads it from the source)");
        }
        String attribute = "value";
        for (int i = 0; i < tokens.size(); i++) {
            String tok = tokens.get(i);
            if (tok.matches("[A-Za-z_]\\w*")) {
                if (i + 1 >= tokens.size() || !tokens.get(i + 1).equals("=")
                        || !(tok.equals("value") || tok.equals("refused") || tok.equals("kernel"))) {
                    throw new IllegalStateException(where + ": @Exercises names '" + tok
                            + "': use string literals, with the attributes value, refused and kernel");
                }
                attribute = tok;
                attributes.putIfAbsent(attribute, "");
                i++;
            } else if (tok.startsWith("\"")) {
                String text = Sources.unescape(tok.substring(1, tok.length() - 1));
                if (attribute.equals("value")) {
                    functions.add(text);
                } else {
                    attributes.merge(attribute, text, String::concat);
                }
            }
        }
        attributes.replaceAll((k, v) -> v.strip());
        if (functions.isEmpty()) {
            throw new IllegalStateException(where + ": @Exercises names no function");
        }
        if ("".equals(attributes.get("refused"))) {
            throw new IllegalStateException(where + ": @Exercises(refused = \"\") says nothing; leave it out "
                    + "when the test shows the functions working");
        }
    }
}
