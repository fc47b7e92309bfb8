// The report as a document: a list of blocks (headings, paragraphs, lists, tables, charts) built
// once from a Report by report_document(). Every view of a report renders this one document:
// Markdown (`pha report`), HTML (`pha report --format html`, the dock's export) and the window's
// Report dock (Qt widgets), so a section, table, row or reason in one is in every other; a view
// only chooses how a style looks. JSON (report_json) stays a dump of the Report's data.
// Plain C++: no torch, no Qt. Rules: docs/report.md, "One document, every view".
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace pha::analysis {

struct Report;
enum class Verdict;

// How a run of text is shown: Strong bold; Code a name or key (Markdown `x`); Secondary a reason
// or aside (HTML grey); Warning what the reader must not miss (early training, a tuned value at
// the edge of those tried): Markdown bold, HTML and the dock amber.
enum class SpanStyle { Plain, Strong, Code, Secondary, Warning };

struct Span {
  std::string text;
  SpanStyle style = SpanStyle::Plain;
  std::optional<Verdict> verdict;  // the text is a verdict: HTML's badge, the dock's verdict colour
};
using Spans = std::vector<Span>;

// A table cell: its spans joined by `join` in text (Markdown, the dock), one line each in HTML.
struct Cell {
  Spans spans;
  std::string join = "; ";
  bool numeric = false;  // right-aligned in HTML
  bool warn = false;     // the cell is a warning (an early-training budget): HTML class early, the dock amber
  std::string tooltip;   // more detail where a view has tooltips (the dock); never the only place of a fact
};

enum class BlockKind { Heading, Paragraph, List, Table, Chart };

struct Block {
  BlockKind kind = BlockKind::Paragraph;
  int level = 0;                   // Heading: 1 (the report), 2 (a section), 3 (a claim, a table's subject)
  Spans text;                      // Heading, Paragraph
  bool meta = false;               // Paragraph: how the figures below are computed (HTML class meta)
  std::vector<Spans> items;        // List
  std::string id;                  // Table, Chart: "claim1", "mixer1", "tuning1", "scaling-params", "groups",
                                   //   "efficiency", "length", "ood" (the dock's object names)
  std::vector<std::string> columns;      // Table: the header
  std::vector<std::vector<Cell>> rows;   // Table: cells, as many as columns
  std::string title;               // Chart: what it shows
  std::string svg;                 // Chart: inline SVG whose classes the page's CSS styles (standalone_svg)
};

struct ReportDocument {
  std::string title;  // "Report: <project>"
  std::vector<Block> blocks;
};

// The one document of a report (report_document.cpp): every section, table and row of it.
ReportDocument report_document(const Report& report);

// The renderers (report_text.cpp, report_html.cpp); render_markdown(Report) and
// render_html(Report) are these of report_document(report).
std::string render_markdown(const ReportDocument& document);
std::string render_html(const ReportDocument& document);

// A run of spans or a cell as plain text, without styles: what the dock shows in a table cell and
// what a Markdown cell reads once its ** and ` are taken away.
std::string plain_text(const Spans& spans);
std::string plain_text(const Cell& cell);
// A Markdown table cell of `text`: '|' escaped, a newline as a space.
std::string markdown_cell(const std::string& text);

// A chart's SVG with its own <style> (the classes the HTML page styles), for a viewer without
// the page's CSS (the dock draws it with QSvgRenderer).
std::string standalone_svg(const std::string& svg);

}  // namespace pha::analysis
