// The paths README.md and docs/*.md name exist: every relative link, and every path into the
// repository written in `code` (scenarios/..., docs/..., sim/..., tests/..., reports/..., .ci/...),
// so a reader who copies one finds the file. Paths under build/ and out/ are outputs, and paths
// with a placeholder (<point_id>) are templates: neither is checked here.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/test_process.h"

namespace {

namespace fs = std::filesystem;

const fs::path kSource = DDPSIM_SOURCE_DIR;

const char* const kRepositoryFolders[] = {"docs/",    "scenarios/", "sim/",     "tests/",
                                          "reports/", "calibrate/", "kernels/", ".ci/"};

// Relative paths a page names, each with the page's folder it is relative to.
std::set<fs::path> named_paths(const fs::path& page) {
  const std::string text = ddpsim::testing::read_text(page);
  std::set<fs::path> paths;
  static const std::regex link(R"(\]\(([^)#\s]+)[^)]*\))");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), link); it != std::sregex_iterator();
       ++it) {
    const std::string target = (*it)[1];
    if (target.find("://") != std::string::npos) continue;
    paths.insert(page.parent_path() / target);
  }
  // In code spans, words that start with a folder of the repository (README is at its root).
  static const std::regex code("`([^`\n]+)`");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), code); it != std::sregex_iterator();
       ++it) {
    std::istringstream words((*it)[1].str());
    for (std::string word; words >> word;) {
      while (!word.empty() && std::string(",;:)").find(word.back()) != std::string::npos)
        word.pop_back();
      bool in_repository = false;
      for (const char* folder : kRepositoryFolders) in_repository |= word.rfind(folder, 0) == 0;
      if (!in_repository || word.find_first_of("<>*{}$") != std::string::npos) continue;
      paths.insert(kSource / word);
    }
  }
  return paths;
}

TEST(Docs, EveryPathTheReadmeAndDocsNameExists) {
  std::vector<fs::path> pages = {kSource / "README.md"};
  for (const auto& entry : fs::directory_iterator(kSource / "docs"))
    if (entry.path().extension() == ".md") pages.push_back(entry.path());
  size_t checked = 0;
  for (const fs::path& page : pages) {
    for (const fs::path& path : named_paths(page)) {
      EXPECT_TRUE(fs::exists(path)) << page.filename() << " names " << path;
      ++checked;
    }
  }
  EXPECT_GT(checked, 40u);  // README alone links a dozen docs and images
}

}  // namespace
