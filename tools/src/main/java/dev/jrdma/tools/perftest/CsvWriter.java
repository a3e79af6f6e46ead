// SPDX-License-Identifier: Apache-2.0
package dev.jrdma.tools.perftest;

import java.io.IOException;
import java.util.List;

/**
 * RFC 4180 records for {@link CsvReport}: a field is quoted when it holds a comma, a double
 * quote, CR or LF, and a double quote inside is doubled; records end with LF, as Commons CSV's
 * DEFAULT with an LF record separator wrote them before (RFC 4180 names CRLF; every CSV reader
 * this output is for accepts LF). This replaced commons-csv, which brought commons-io and
 * commons-codec along: about 1 MB of the command line's 4 MB lib/ for quoting a few strings.
 */
final class CsvWriter {
    private CsvWriter() {
    }

    /** One record: the fields' {@code String.valueOf}, null as an empty field. */
    static void record(Appendable out, List<?> fields) throws IOException {
        for (int i = 0; i < fields.size(); i++) {
            if (i > 0) {
                out.append(',');
            }
            Object f = fields.get(i);
            out.append(field(f == null ? "" : String.valueOf(f)));
        }
        out.append('\n');
    }

    /** A field as RFC 4180 writes it. */
    static String field(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == ',' || c == '"' || c == '\r' || c == '\n') {
                return '"' + s.replace("\"", "\"\"") + '"';
            }
        }
        return s;
    }
}
