// JSON syntax errors said plainly, for people editing JSON by hand (the Configuration dock's
// JSON pane, project.json): "line 3, column 3: expected ',' or '}'" instead of nlohmann's
// "[json.exception.parse_error.101] parse error at line 3, column 5: syntax error while parsing
// object - unexpected string literal; expected '}'". Line and column (1-based, in characters)
// are where the offending token starts.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace pha::core {

struct JsonSyntaxError {
  int line = 1;
  int column = 1;
  std::string message;  // what is wrong there: "expected ',' or '}'"
  std::string text() const { return "line " + std::to_string(line) + ", column " + std::to_string(column) + ": " + message; }
};

// `e` came from parsing `text`.
JsonSyntaxError describe_json_syntax_error(const std::string& text, const nlohmann::json::parse_error& e);

}  // namespace pha::core
