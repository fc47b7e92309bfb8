#include "core/json_syntax.h"

#include <algorithm>
#include <cctype>

namespace pha::core {

namespace {

bool literal_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '+' || c == '.' || c == '_'; }

// Index where the token the parser stopped at begins; `last` is the index of the last byte it read.
size_t token_start(const std::string& t, size_t last, bool in_string, bool bad_literal) {
  if (last >= t.size()) return t.size();
  if (in_string || t[last] == '"') {
    // Back to the opening quote (an escaped quote does not count).
    for (size_t i = t[last] == '"' ? last : last + 1; i-- > 0;)
      if (t[i] == '"' && (i == 0 || t[i - 1] != '\\') && i != last) return i;
    return last;
  }
  size_t i = last;
  if (bad_literal && !literal_char(t[i]) && i > 0 && literal_char(t[i - 1])) --i;  // read one past its end
  while (i > 0 && literal_char(t[i]) && literal_char(t[i - 1])) --i;
  return i;
}

std::string plain_message(const std::string& context, const std::string& detail) {
  auto has = [&](const char* s) { return detail.find(s) != std::string::npos; };
  if (has("control character")) return "a line break or control character inside a string (write \\n, \\t)";
  if (context == "object separator") return "expected ':' after the key";
  if (context == "object key") return has("unexpected '}'") ? "expected a key in double quotes (JSON has no comma before '}')"
                                                            : "expected a key in double quotes";
  if (has("end of input") && context == "object") return "the text ends before the closing '}'";
  if (has("end of input") && context == "array") return "the text ends before the closing ']'";
  if (context == "object") return "expected ',' or '}'";
  if (context == "array") return has("unexpected ']'") ? "expected a value (JSON has no comma before ']')" : "expected ',' or ']'";
  if (has("unexpected end of input")) return "the text is empty or ends too early";
  if (has("expected end of input")) return "text after the end of the document (one '}' or ']' too many?)";
  if (has("invalid literal") || has("invalid number"))
    return "not a JSON value (strings need double quotes; true, false and null are lower case)";
  const size_t last = detail.find("; last read");
  return detail.substr(0, last);
}

}  // namespace

JsonSyntaxError describe_json_syntax_error(const std::string& text, const nlohmann::json::parse_error& e) {
  const std::string what = e.what();
  // "... syntax error while parsing <context> - <detail>"
  std::string context, detail = what;
  const std::string marker = "while parsing ";
  if (const size_t at = what.find(marker); at != std::string::npos) {
    const size_t dash = what.find(" - ", at);
    context = what.substr(at + marker.size(), dash == std::string::npos ? std::string::npos : dash - at - marker.size());
    detail = dash == std::string::npos ? "" : what.substr(dash + 3);
  } else if (const size_t colon = what.find(": "); colon != std::string::npos) {
    detail = what.substr(colon + 2);
  }
  const size_t last = e.byte > 0 ? static_cast<size_t>(e.byte - 1) : 0;
  const size_t start = token_start(text, std::min(last, text.size()), detail.find("invalid string") != std::string::npos,
                                   detail.find("invalid literal") != std::string::npos);
  JsonSyntaxError out;
  const size_t line_begin = start == 0 ? 0 : text.rfind('\n', start - 1) == std::string::npos ? 0 : text.rfind('\n', start - 1) + 1;
  out.line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(line_begin), '\n'));
  // Characters, not bytes: UTF-8 continuation bytes do not start a character.
  out.column = 1 + static_cast<int>(std::count_if(text.begin() + static_cast<long>(line_begin), text.begin() + static_cast<long>(start),
                                                  [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
  out.message = plain_message(context, detail);
  return out;
}

}  // namespace pha::core
