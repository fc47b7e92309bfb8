#include "data/tokenizer.h"

#include "core/paths.h"
#include "data/bpe_tokenizer.h"
#include "data/internal/byte_tokenizer.h"
#include "core/config_reader.h"

namespace pha::data {

std::unique_ptr<Tokenizer> make_tokenizer(const nlohmann::json& config, const std::string& where) {
  core::ConfigReader r(config, where);
  const std::string kind = r.get_choice("kind", "byte", {"byte", "gpt2", "bpe"});
  std::unique_ptr<Tokenizer> tok;
  if (kind == "byte") {
    const std::vector<std::string> specials = r.get_string_list("specials", {"<|endoftext|>"});
    r.finish();
    tok = std::make_unique<ByteTokenizer>(specials);
  } else if (kind == "gpt2") {
    const std::string dir = r.get_string("dir", core::gpt2_tokenizer_dir().string());
    r.finish();
    tok = BpeTokenizer::load(dir, "gpt2");
  } else {
    const std::string dir = r.require_string("dir");
    r.finish();
    tok = BpeTokenizer::load(dir, "bpe");
  }
  return tok;
}

}  // namespace pha::data
