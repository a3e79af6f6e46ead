# SPDX-License-Identifier: Apache-2.0
"""Writes the fault suite's results (scripts/fault-suite) into docs/reliability.md.

Usage: reliability_table.py RESULTS.tsv DOC.md COMMAND SECONDS [NOTE]
Replaces what lies between the markers <!-- fault-table:begin --> and <!-- fault-table:end -->
(appending them when absent) with a Markdown table of the rows, one per scenario.
"""
import datetime
import sys

BEGIN, END = "<!-- fault-table:begin -->", "<!-- fault-table:end -->"
COLUMNS = ["Scenario", "Fault", "Expected", "As expected", "What happened", "Time", "Verified", "Throughput"]


def table(rows, command, seconds, note=""):
    day = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    lines = [f"Run on {day} with `{command}` ({len(rows)} scenarios, {seconds} s in all{note}).", "",
             "| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for row in rows:
        cells = (row + ["-"] * len(COLUMNS))[:len(COLUMNS)]
        lines.append("| " + " | ".join(c.replace("|", "\\|") or "-" for c in cells) + " |")
    return "\n".join(lines)


def main():
    results, doc, command, seconds = sys.argv[1:5]
    note = f"; {sys.argv[5]}" if len(sys.argv) > 5 else ""
    with open(results, encoding="utf-8") as f:
        rows = [line.rstrip("\n").split("\t") for line in f if line.strip()]
    try:
        with open(doc, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        text = "# Reliability across a wire\n\n"
    block = f"{BEGIN}\n{table(rows, command, seconds, note)}\n{END}"
    if BEGIN in text and END in text:
        text = text[:text.index(BEGIN)] + block + text[text.index(END) + len(END):]
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    with open(doc, "w", encoding="utf-8") as f:
        f.write(text)


if __name__ == "__main__":
    main()
