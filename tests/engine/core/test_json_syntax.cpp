// JSON syntax errors said plainly: the line and column where the offending token starts and
// what was expected there, never nlohmann's exception text.
#include "core/json_syntax.h"

#include <gtest/gtest.h>

namespace {

std::string said(const std::string& text) {
  try {
    const nlohmann::json parsed = nlohmann::json::parse(text);
    (void)parsed;
  } catch (const nlohmann::json::parse_error& e) {
    return pha::core::describe_json_syntax_error(text, e).text();
  }
  return "(parsed)";
}

}  // namespace

TEST(JsonSyntax, NamesTheTokenWhereParsingStoppedAndWhatWasExpected) {
  EXPECT_EQ(said("{\n  \"a\": 1\n  \"b\": 2\n}"), "line 3, column 3: expected ',' or '}'");
  EXPECT_EQ(said("{\"a\" 1}"), "line 1, column 6: expected ':' after the key");
  EXPECT_EQ(said("{1: 2}"), "line 1, column 2: expected a key in double quotes");
  EXPECT_EQ(said("{\"a\": 1,}"), "line 1, column 9: expected a key in double quotes (JSON has no comma before '}')");
  EXPECT_EQ(said("[1 22]"), "line 1, column 4: expected ',' or ']'");
  EXPECT_EQ(said("{\"a\": [1, 2}"), "line 1, column 12: expected ',' or ']'");
  EXPECT_EQ(said("{\n  \"a\": tru}"),
            "line 2, column 8: not a JSON value (strings need double quotes; true, false and null are lower case)");
  EXPECT_EQ(said("{\"a\": 1"), "line 1, column 8: the text ends before the closing '}'");
  EXPECT_EQ(said(""), "line 1, column 1: the text is empty or ends too early");
  EXPECT_EQ(said("{\"a\": 1}}"), "line 1, column 9: text after the end of the document (one '}' or ']' too many?)");
  EXPECT_EQ(said("{\"é\": \"x\ny\"}"), "line 1, column 7: a line break or control character inside a string (write \\n, \\t)")
      << "columns count characters, not UTF-8 bytes";
  EXPECT_EQ(said("{\"a\": 1}"), "(parsed)");
}
