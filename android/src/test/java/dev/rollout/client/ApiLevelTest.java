package dev.rollout.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Keeps JDK-only APIs out of the library: every java.* and javax.* class, method and field the compiled library
 * refers to (read from the class files' constant pools, where javac records every reference) must be listed in
 * android/api-levels.txt with the Android API level it appeared in, checked against developer.android.com's "Added in
 * API level N", and that level must be at most 26, the library's minimum (docs/android.md). A reference nobody has
 * checked fails with its name; so does one from a later level (String.isBlank, List.of, java.net.http...).
 */
class ApiLevelTest {
    static final int MINIMUM_API = 26;

    /** Instead of a level: a reference D8 rewrites away when it dexes the library (lambdas), never made on a device. */
    static final String DESUGARED = "d8";

    static Path classes() {
        String explicit = System.getProperty("rollout.classes");
        return explicit != null ? Paths.get(explicit) : Fixtures.repo().resolve(".build/android/classes");
    }

    @Test
    void everyPlatformReferenceOfTheLibraryIsInAndroidApi26() throws IOException {
        Map<String, String> levels = levels(Fixtures.repo().resolve("android/api-levels.txt"));
        Map<String, Set<String>> references = references(classes());
        assertTrue(references.size() > 20, "the library's classes were not found in " + classes());
        List<String> problems = new ArrayList<>();
        for (Map.Entry<String, Set<String>> entry : references.entrySet()) {
            String reference = entry.getKey();
            String level = levels.get(reference);
            String users = String.join(", ", entry.getValue());
            if (level == null) {
                problems.add(reference + " (used by " + users + ") is not in android/api-levels.txt: look it up on "
                        + "developer.android.com/reference and add it with its API level");
            } else if (!level.equals(DESUGARED) && Integer.parseInt(level) > MINIMUM_API) {
                problems.add(reference + " (used by " + users + ") appeared in Android API " + level
                        + ", after the library's minimum " + MINIMUM_API);
            }
        }
        if (!problems.isEmpty()) fail(problems.size() + " platform reference(s):\n  " + String.join("\n  ", problems));
    }

    @Test
    void theListNamesEachReferenceOnceWithALevel() throws IOException {
        List<String> lines = Files.readAllLines(Fixtures.repo().resolve("android/api-levels.txt"), StandardCharsets.UTF_8);
        Set<String> seen = new TreeSet<>();
        for (String line : lines) {
            String text = line.trim();
            if (text.isEmpty() || text.startsWith("#")) continue;
            String[] fields = text.split("\\s+");
            assertEquals(2, fields.length, "a line is NAME LEVEL: " + line);
            assertTrue(fields[1].equals(DESUGARED) || fields[1].matches("[1-9][0-9]?"), "not an API level: " + line);
            assertTrue(seen.add(fields[0]), "listed twice: " + fields[0]);
        }
    }

    @Test
    void theReaderSeesAJdkOnlyCallAsAReference() throws IOException {
        // This test's own class file: it calls String.isBlank (API 33) below, which the library must never do.
        Path own;
        try {
            own = Paths.get(ApiLevelTest.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                    .resolve("dev/rollout/client/ApiLevelTest.class");
        } catch (java.net.URISyntaxException e) {
            throw new AssertionError(e);
        }
        Map<String, Set<String>> references = new TreeMap<>();
        try (InputStream in = Files.newInputStream(own)) {
            read(in, "ApiLevelTest", references);
        }
        assertTrue(references.containsKey("java.lang.String#isBlank()"), references.keySet().toString());
        assertTrue(references.containsKey("java.lang.String"), references.keySet().toString());
        assertTrue(" ".isBlank());
    }

    /** api-levels.txt: NAME LEVEL per line; a line starting with {@code #} is a comment. */
    static Map<String, String> levels(Path file) throws IOException {
        Map<String, String> levels = new TreeMap<>();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            String text = line.trim();
            if (text.isEmpty() || text.startsWith("#")) continue;
            String[] fields = text.split("\\s+");
            if (fields.length == 2) levels.put(fields[0], fields[1]);
        }
        return levels;
    }

    /** Every java.* and javax.* reference of the class files under {@code root}, with the classes making it. */
    static Map<String, Set<String>> references(Path root) throws IOException {
        Map<String, Set<String>> references = new TreeMap<>();
        List<Path> files;
        try (Stream<Path> walk = Files.walk(root)) {
            files = walk.filter(p -> p.toString().endsWith(".class")).sorted().collect(Collectors.toList());
        }
        for (Path file : files) {
            String user = root.relativize(file).toString().replace('/', '.').replaceAll("\\.class$", "");
            try (InputStream in = Files.newInputStream(file)) {
                read(in, user, references);
            }
        }
        return references;
    }

    private static final Pattern TYPE_IN_DESCRIPTOR = Pattern.compile("L([a-zA-Z_$0-9/]+);");

    /**
     * One class file's constant pool (JVMS 4.4): classes, field and method references, and the types named in
     * descriptors and signatures (a field of type java.time.Clock names the class only there).
     */
    static void read(InputStream stream, String user, Map<String, Set<String>> references) throws IOException {
        DataInputStream in = new DataInputStream(new java.io.BufferedInputStream(stream));
        if (in.readInt() != 0xCAFEBABE) throw new IOException(user + " is not a class file");
        in.readUnsignedShort();
        in.readUnsignedShort();
        int count = in.readUnsignedShort();
        int[] tags = new int[count];
        String[] utf8 = new String[count];
        int[] first = new int[count];
        int[] second = new int[count];
        for (int i = 1; i < count; i++) {
            int tag = in.readUnsignedByte();
            tags[i] = tag;
            switch (tag) {
                case 1: utf8[i] = in.readUTF(); break;
                case 3: case 4: in.readInt(); break;
                case 5: case 6: in.readLong(); i++; break;
                case 7: case 8: case 16: case 19: case 20: first[i] = in.readUnsignedShort(); break;
                case 9: case 10: case 11: case 12: case 17: case 18:
                    first[i] = in.readUnsignedShort();
                    second[i] = in.readUnsignedShort();
                    break;
                case 15: first[i] = in.readUnsignedByte(); second[i] = in.readUnsignedShort(); break;
                default: throw new IOException(user + ": constant pool tag " + tag + " unknown");
            }
        }
        for (int i = 1; i < count; i++) {
            if (tags[i] == 7) {
                String name = utf8[first[i]];
                // An array class ("[Ljava/lang/String;") names its element type.
                if (name.startsWith("[")) {
                    descriptorTypes(name, user, references);
                } else {
                    add(references, platform(name), user);
                }
            } else if (tags[i] == 9 || tags[i] == 10 || tags[i] == 11) {
                String owner = utf8[first[first[i]]];
                if (owner.startsWith("[")) continue;  // clone() of an array
                String name = utf8[first[second[i]]];
                String descriptor = utf8[second[second[i]]];
                if (platform(owner) == null) continue;
                add(references, platform(owner), user);
                String member = platform(owner) + "#" + name + (tags[i] == 9 ? "" : parameters(descriptor));
                add(references, member, user);
            } else if (tags[i] == 1) {
                descriptorTypes(utf8[i], user, references);
            }
        }
    }

    private static void descriptorTypes(String text, String user, Map<String, Set<String>> references) {
        Matcher matcher = TYPE_IN_DESCRIPTOR.matcher(text);
        while (matcher.find()) add(references, platform(matcher.group(1)), user);
    }

    /** {@code java/util/Map$Entry} as {@code java.util.Map$Entry}; null unless java.* or javax.*. */
    private static String platform(String internalName) {
        if (!(internalName.startsWith("java/") || internalName.startsWith("javax/"))) return null;
        return internalName.replace('/', '.');
    }

    /** A method descriptor's parameters as source spells them: {@code (Ljava/lang/String;I)V} is (String,int). */
    static String parameters(String descriptor) {
        List<String> out = new ArrayList<>();
        int i = 1;
        while (descriptor.charAt(i) != ')') {
            int dimensions = 0;
            while (descriptor.charAt(i) == '[') {
                dimensions++;
                i++;
            }
            String type;
            char c = descriptor.charAt(i);
            if (c == 'L') {
                int end = descriptor.indexOf(';', i);
                type = descriptor.substring(i + 1, end).replace('/', '.');
                i = end + 1;
            } else {
                type = primitive(c);
                i++;
            }
            StringBuilder spelled = new StringBuilder(type);
            for (int d = 0; d < dimensions; d++) spelled.append("[]");
            out.add(spelled.toString());
        }
        return "(" + String.join(",", out) + ")";
    }

    private static String primitive(char c) {
        switch (c) {
            case 'Z': return "boolean";
            case 'B': return "byte";
            case 'C': return "char";
            case 'S': return "short";
            case 'I': return "int";
            case 'J': return "long";
            case 'F': return "float";
            case 'D': return "double";
            default: throw new IllegalArgumentException("descriptor type " + c);
        }
    }

    private static void add(Map<String, Set<String>> references, String reference, String user) {
        if (reference == null) return;
        references.computeIfAbsent(reference, k -> new TreeSet<>()).add(user.replaceAll("\\$.*", ""));
    }
}
