// Example tests of your strategy (src/strategy.cpp): yours to change with it. make test-strategy runs them alone.
// They pin down what the starting strategy does: its first click under each rule, the moves the two single-cell
// rules make certain, and a seeded guess when none is. When you change the strategy, change these to say what
// yours does; the client's tests (tests/test_client.cpp) do not depend on them, nor on your strategy.
#include <iostream>
#include <string>
#include <vector>

#include "../src/client.hpp"

using nlohmann::json;

static int checks = 0, failures = 0;
#define CHECK(condition)                                                                    \
    do {                                                                                    \
        ++checks;                                                                           \
        if (!(condition)) {                                                                 \
            ++failures;                                                                     \
            std::cerr << __FILE__ << ":" << __LINE__ << " " << __func__ << ": failed: " #condition \
                      << std::endl;                                                         \
        }                                                                                   \
    } while (0)

static const std::string SEED = "c9d0342fd9bb4860326e6cb830c5b01b";

static json play(const std::vector<std::string>& rows, const std::string& rule) {
    GameInfo info;
    info.height = static_cast<int>(rows.size());
    info.width = static_cast<int>(rows[0].size());
    info.mines = 2;
    info.rule = rule;
    info.seed = SEED;
    return make_strategy(info, SplitMix64(SEED))->play(Board(rows, 2, 0, 0)).to_json();
}

static void test_first_clicks_by_rule() {
    const std::vector<std::pair<std::string, std::pair<int, int>>> cases{
        {"safe", {0, 0}}, {"windows", {0, 0}}, {"opening", {2, 3}}, {"none", {0, 0}}};
    for (const auto& [rule, cell] : cases) {
        json message = play({"####", "####", "####"}, rule);
        CHECK(message["actions"] == json::array({json::array({"reveal", cell.first, cell.second})}));
        CHECK(message.contains("guess") == (rule == "none"));
    }
}

static void test_certain_moves_are_played_together() {
    CHECK(play({"0000", "1111", "#1##"}, "safe") ==
          json::parse(R"({"actions": [["reveal", 2, 2], ["flag", 2, 0], ["flag", 2, 3]]})"));
}

static void test_a_seeded_guess_with_a_note() {
    json message = play({"0000", "1111", "####"}, "safe");
    CHECK(message == json::parse(R"({"actions": [["reveal", 2, 1]], "guess": [[2, 1]],
                                      "notes": [[0, "no certain move: one of 4 covered cells at random"]]})"));
    CHECK(play({"0000", "1111", "####"}, "safe") == message);
}

int main() {
    test_first_clicks_by_rule();
    test_certain_moves_are_played_together();
    test_a_seeded_guess_with_a_note();
    std::cout << checks - failures << " of " << checks << " checks passed" << std::endl;
    return failures == 0 ? 0 : 1;
}
