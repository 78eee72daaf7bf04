package dev.rollout.client;

import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.xml.parsers.ParserConfigurationException;
import javax.xml.parsers.SAXParser;
import javax.xml.parsers.SAXParserFactory;
import org.xml.sax.Attributes;
import org.xml.sax.InputSource;
import org.xml.sax.SAXException;
import org.xml.sax.SAXParseException;
import org.xml.sax.ext.DefaultHandler2;

/**
 * One Android resource file ({@code res/values-tr/strings.xml}) read as aapt2 reads its strings
 * and plurals, and the locale of a {@code values*} folder: the Java twin of
 * {@code CatalogImporter.android} in Sources/RolloutImport/AndroidImport.swift, so that a file
 * gives the same text in {@code rollout pack import} and in {@link BundledStrings}.
 */
final class AndroidStringsXml {
    private AndroidStringsXml() {}

    /**
     * One piece of a value: text as written, or where an element inside it starts or ends. A span
     * is an element without a namespace ({@code <b>}, {@code <annotation>}), which aapt2 keeps as
     * style; {@code <xliff:g>} and other namespaced elements are not spans.
     */
    static final class Piece {
        final StringBuilder text;
        final boolean span;

        private Piece(StringBuilder text, boolean span) {
            this.text = text;
            this.span = span;
        }

        boolean isText() {
            return text != null;
        }
    }

    /** A value as written in the file (escapes and quotes not yet read): its text runs and elements. */
    static final class Value {
        final List<Piece> raw;
        final boolean formatted;
        final Map<String, List<Piece>> forms;

        private Value(List<Piece> raw, boolean formatted, Map<String, List<Piece>> forms) {
            this.raw = raw;
            this.formatted = formatted;
            this.forms = forms;
        }

        boolean isPlural() {
            return forms != null;
        }

        /** The value in the pack's ICU form, as import writes it. */
        String icu(String language) throws Placeholders.Refusal {
            if (forms != null) {
                Map<String, String> unescaped = new LinkedHashMap<>();
                for (Map.Entry<String, List<Piece>> form : forms.entrySet()) {
                    unescaped.put(form.getKey(), text(form.getValue()));
                }
                return Placeholders.printfPlural(unescaped, language);
            }
            String text = text(raw);
            // Every % left in the ICU form is text: written so the pack shows it as itself.
            return PackPrintf.literalPercents(formatted ? Placeholders.printfIcu(text) : Placeholders.literal(text));
        }
    }

    /** What one file defines: its values in file order, and what it leaves out (key, reason). */
    static final class Contents {
        final List<Map.Entry<String, Value>> values = new ArrayList<>();
        final List<Map.Entry<String, String>> skipped = new ArrayList<>();
    }

    /** A file that is not well-formed XML (or declares a DTD), with where the parser stopped. */
    static final class Unreadable extends Exception {
        private static final long serialVersionUID = 1L;

        Unreadable(String message) {
            super(message);
        }
    }

    /**
     * Reads one resource file. A DOCTYPE's internal entities are expanded first
     * ({@link AndroidEntities}), as aapt2 reads them; external entities and DTDs are refused: a file
     * fetched from elsewhere must not make the parser open other files or URLs, and the parser
     * itself never sees a DOCTYPE.
     */
    static Contents read(byte[] file) throws Unreadable {
        byte[] xml;
        try {
            byte[] expanded = AndroidEntities.expand(file);
            xml = expanded == null ? file : expanded;
        } catch (AndroidEntities.Refusal refusal) {
            throw new Unreadable(refusal.line + ": " + refusal.getMessage());
        }
        Reader reader = new Reader();
        try {
            SAXParserFactory factory = SAXParserFactory.newInstance();
            factory.setNamespaceAware(false);
            factory.setValidating(false);
            refuseDoctype(factory);
            SAXParser parser = factory.newSAXParser();
            // Reported before any declaration of a DOCTYPE is read, on the JDK's parser and Android's.
            parser.setProperty("http://xml.org/sax/properties/lexical-handler", reader);
            parser.parse(new InputSource(new ByteArrayInputStream(xml)), reader);
        } catch (SAXParseException e) {
            throw new Unreadable(e.getLineNumber() + ":" + e.getColumnNumber() + ": not well-formed XML ("
                    + e.getMessage() + ")");
        } catch (SAXException | ParserConfigurationException | IOException e) {
            throw new Unreadable("not well-formed XML (" + e.getMessage() + ")");
        }
        return reader.contents;
    }

    /**
     * Asks the parser to refuse a DOCTYPE itself where it knows the feature (the JDK's Xerces);
     * Android's Expat-based parser does not, and {@link Reader#startDTD} refuses it there.
     */
    private static void refuseDoctype(SAXParserFactory factory) {
        String[][] features = {
            {"http://apache.org/xml/features/disallow-doctype-decl", "true"},
            {"http://xml.org/sax/features/external-general-entities", "false"},
            {"http://xml.org/sax/features/external-parameter-entities", "false"},
        };
        for (String[] feature : features) {
            try {
                factory.setFeature(feature[0], Boolean.parseBoolean(feature[1]));
            } catch (ParserConfigurationException | SAXException unknownHere) {
                // Not every parser knows every feature: the handler refuses a DOCTYPE anyway.
            }
        }
    }

    /** The SAX side of {@code AndroidStrings} (an XMLParserDelegate) in AndroidImport.swift. */
    private static final class Reader extends DefaultHandler2 {
        final Contents contents = new Contents();
        private String name;
        private boolean formatted = true;
        private String quantity;
        private Map<String, List<Piece>> forms = new LinkedHashMap<>();
        private List<Piece> pieces = new ArrayList<>();
        private int depth;
        private boolean inString;
        private boolean inPlurals;
        /** The depth of the string or item whose text is being read. */
        private int textDepth;

        @Override
        public void startDTD(String root, String publicId, String systemId) throws SAXException {
            throw new SAXException("a DOCTYPE declaration that is not UTF-8 is not read");
        }

        @Override
        public InputSource resolveEntity(String name, String publicId, String baseUri, String systemId)
                throws SAXException {
            throw new SAXException("the external entity " + systemId + " is not read");
        }

        @Override
        public void startElement(String uri, String localName, String element, Attributes attributes) {
            depth++;
            if (inString && depth > textDepth) {
                pieces.add(new Piece(null, element.indexOf(':') < 0));
                return;
            }
            if (!(depth == 2 || (depth == 3 && inPlurals && element.equals("item")))) return;
            switch (element) {
                case "string":
                case "plurals":
                    name = attributes.getValue("name");
                    formatted = !"false".equals(attributes.getValue("formatted"));
                    pieces = new ArrayList<>();
                    forms = new LinkedHashMap<>();
                    inString = element.equals("string") && name != null;
                    inPlurals = element.equals("plurals");
                    textDepth = depth;
                    String product = attributes.getValue("product");
                    if ("false".equals(attributes.getValue("translatable"))) {
                        skip(name == null ? "?" : name, "marked translatable=\"false\"");
                        name = null;
                        inString = false;
                    } else if (product != null && !product.equals("default") && name != null) {
                        skip(name, "the variant for product \"" + product
                                + "\"; a build for it is not what devices get by default");
                        name = null;
                        inString = false;
                    }
                    break;
                case "item":
                    if (name == null) break;
                    quantity = attributes.getValue("quantity");
                    pieces = new ArrayList<>();
                    inString = true;
                    textDepth = depth;
                    break;
                case "string-array":
                case "array":
                case "integer-array":
                    String array = attributes.getValue("name");
                    skip(array == null ? "?" : array, "string arrays are not imported");
                    break;
                default:
                    break;
            }
        }

        @Override
        public void characters(char[] characters, int start, int length) {
            if (!inString) return;
            if (pieces.isEmpty() || !pieces.get(pieces.size() - 1).isText()) {
                pieces.add(new Piece(new StringBuilder(), false));
            }
            pieces.get(pieces.size() - 1).text.append(characters, start, length);
        }

        @Override
        public void endElement(String uri, String localName, String element) {
            if (inString && depth > textDepth) {
                pieces.add(new Piece(null, element.indexOf(':') < 0));
            } else if (element.equals("string") && depth == 2) {
                if (name != null) add(name, new Value(pieces, formatted, null));
                name = null;
                inString = false;
            } else if (element.equals("item") && depth == 3 && inPlurals) {
                if (quantity != null) forms.put(quantity, pieces);
                quantity = null;
                inString = false;
            } else if (element.equals("plurals") && depth == 2) {
                if (name != null && !forms.isEmpty()) add(name, new Value(null, formatted, forms));
                name = null;
                inPlurals = false;
            }
            depth--;
        }

        private void skip(String key, String reason) {
            contents.skipped.add(new AbstractMap.SimpleImmutableEntry<>(key, reason));
        }

        /**
         * A value that is a reference ({@code @string/other}) is that resource, resolved by aapt for
         * the app: it has no text of its own. aapt2 looks for one in the value's text as written,
         * trimmed of ASCII white space, unless the value has a span. A plural with one such form is
         * left out whole (the first in file order is named; import names one of them).
         */
        private void add(String key, Value value) {
            List<List<Piece>> raw =
                    value.isPlural() ? new ArrayList<>(value.forms.values()) : Collections.singletonList(value.raw);
            for (List<Piece> each : raw) {
                if (hasSpan(each)) continue;
                StringBuilder written = new StringBuilder();
                for (Piece piece : each) if (piece.isText()) written.append(piece.text.toString());
                String trimmed = trimmed(written.toString());
                if ((trimmed.startsWith("@") || trimmed.startsWith("?")) && trimmed.contains("/")) {
                    skip(key, "a reference to " + trimmed + ", not text");
                    return;
                }
            }
            contents.values.add(new AbstractMap.SimpleImmutableEntry<>(key, value));
        }
    }

    private static boolean hasSpan(List<Piece> pieces) {
        for (Piece piece : pieces) if (!piece.isText() && piece.span) return true;
        return false;
    }

    /**
     * White space as aapt2 trims and collapses it: the ASCII characters C's {@code isspace} names. A
     * no-break space (U+00A0, French typography's "Bonjour !"), U+202F, U+2009, U+3000 are text.
     */
    static boolean isAaptSpace(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\u000B' || c == '\f';
    }

    static String trimmed(String text) {
        int start = 0;
        int end = text.length();
        while (start < end && isAaptSpace(text.charAt(start))) start++;
        while (end > start && isAaptSpace(text.charAt(end - 1))) end--;
        return text.substring(start, end);
    }

    /**
     * A value's text as aapt2 compiles it (ResourceParser::FlattenXmlSubtree, then
     * StringBuilder::AppendText): a value without spans loses the ASCII white space at the start of
     * its first text run and the end of its last, as written; a value with a span keeps both. Outside
     * quotes a run of ASCII white space is one space; {@code "} starts or ends a quoted run and is
     * dropped; {@code \'} {@code \"} {@code \\} {@code \@} {@code \?} {@code \#} are the character,
     * {@code \n} {@code \t} {@code \\uXXXX} what they name, a {@code \} ending a run nothing. The
     * start and end of a span end a quoted run and a run of white space. The same rules as
     * {@code AndroidStrings.text} in AndroidImport.swift.
     */
    static String text(List<Piece> written) {
        String[] runs = new String[written.size()];
        int first = -1;
        int last = -1;
        for (int k = 0; k < runs.length; k++) {
            Piece piece = written.get(k);
            if (!piece.isText()) continue;
            runs[k] = piece.text.toString();
            if (first < 0) first = k;
            last = k;
        }
        if (!hasSpan(written) && first >= 0) {
            String run = runs[first];
            int start = 0;
            while (start < run.length() && isAaptSpace(run.charAt(start))) start++;
            runs[first] = run.substring(start);
            run = runs[last];
            int end = run.length();
            while (end > 0 && isAaptSpace(run.charAt(end - 1))) end--;
            runs[last] = run.substring(0, end);
        }
        TextBuilder builder = new TextBuilder();
        for (int k = 0; k < runs.length; k++) {
            if (runs[k] != null) builder.append(runs[k]);
            else if (written.get(k).span) builder.reset();
        }
        return builder.out.toString();
    }

    /** aapt2's StringBuilder: escapes, quotes and white space, one text run at a time. */
    private static final class TextBuilder {
        final StringBuilder out = new StringBuilder();
        boolean quoted;
        boolean lastWasSpace;

        void reset() {
            quoted = false;
            lastWasSpace = false;
        }

        void append(String raw) {
            int i = 0;
            while (i < raw.length()) {
                char c = raw.charAt(i++);
                if (!quoted && isAaptSpace(c)) {
                    if (!lastWasSpace) out.append(' ');
                    lastWasSpace = true;
                    continue;
                }
                lastWasSpace = false;
                if (c == '\\') {
                    if (i >= raw.length()) break;
                    char next = raw.charAt(i++);
                    switch (next) {
                        case 'n':
                            out.append('\n');
                            break;
                        case 't':
                            out.append('\t');
                            break;
                        case 'u':
                            int code = i + 4 <= raw.length() ? hex4(raw, i) : -1;
                            if (code >= 0) {
                                out.append((char) code);
                                i += 4;
                            } else {
                                out.append('u');
                            }
                            break;
                        default:
                            out.append(next);
                            break;
                    }
                } else if (c == '"') {
                    quoted = !quoted;
                } else {
                    out.append(c);
                }
            }
        }
    }

    private static int hex4(String s, int from) {
        int code = 0;
        for (int k = from; k < from + 4; k++) {
            int digit = Character.digit(s.charAt(k), 16);
            if (digit < 0 || s.charAt(k) > 'f') return -1;
            code = code * 16 + digit;
        }
        // A lone surrogate is no character: the escape is shown as written, as import does.
        return code >= 0xD800 && code <= 0xDFFF ? -1 : code;
    }

    // MARK: folders

    /** The locale of a {@code values*} folder, or why it is not a locale's (and so left out). */
    static final class Folder {
        final String locale;
        final String leftOut;

        private Folder(String locale, String leftOut) {
            this.locale = locale;
            this.leftOut = leftOut;
        }
    }

    /**
     * The locale of a {@code values-*} folder as aapt reads its qualifiers: {@code tr},
     * {@code tr-rTR}, {@code b+sr+Latn}, {@code b+es+419}; anything more ({@code -night},
     * {@code -v21}, {@code -land}, {@code -sw600dp}) is not a locale alone.
     */
    static Folder folderLocale(String folder, String source) {
        if (folder.equals("values")) return new Folder(source, null);
        String qualifier = folder.substring("values-".length());
        String tag;
        if (qualifier.startsWith("b+")) {
            tag = LocaleTags.canonical(qualifier.substring(2).replace('+', '-'));
        } else {
            String[] parts = qualifier.split("-", -1);
            String language = parts[0];
            boolean isLanguage = language.length() >= 2 && language.length() <= 3 && allLowerAscii(language);
            boolean isRegion = parts.length == 2 && parts[1].length() == 3 && parts[1].charAt(0) == 'r'
                    && upperOrDigits(parts[1].substring(1));
            if (!isLanguage || !(parts.length == 1 || isRegion)) {
                return new Folder(null, "its qualifiers (" + qualifier
                        + ") are not only a locale; strings for a screen size, mode or API level are not imported");
            }
            tag = LocaleTags.canonical(parts.length == 2 ? language + "-" + parts[1].substring(1) : language);
        }
        if (tag == null) return new Folder(null, qualifier + " is not a locale");
        if (tag.equals("und") || tag.startsWith("und-")) {
            return new Folder(null, "und is the undetermined language, which no device asks for");
        }
        if (tag.equals("en-XA") || tag.equals("ar-XB")) {
            return new Folder(null, "a pseudolocale, which Android generates to test layouts, not a translation");
        }
        return new Folder(tag, null);
    }

    /** Whether the folder is spelled with a language code Java still writes ({@code values-iw}). */
    static boolean legacySpelling(String folder) {
        for (String legacy : LocaleTags.LEGACY_LANGUAGES.keySet()) {
            if (folder.equals("values-" + legacy) || folder.startsWith("values-" + legacy + "-")) return true;
        }
        return false;
    }

    /** Whether an Android resource file defines strings (a folder of colours or styles loses none). */
    static boolean holdsStrings(File file) {
        try {
            String text = new String(Files.readAllBytes(file.toPath()), StandardCharsets.UTF_8);
            return text.contains("<string") || text.contains("<plurals");
        } catch (IOException | RuntimeException unreadable) {
            return false;
        }
    }

    private static boolean allLowerAscii(String text) {
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) < 'a' || text.charAt(i) > 'z') return false;
        }
        return true;
    }

    private static boolean upperOrDigits(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) return false;
        }
        return true;
    }
}
