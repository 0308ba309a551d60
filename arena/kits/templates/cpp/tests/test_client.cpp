// Tests of the protocol client and the shared generator: make test (or make test-client, these alone).
// They test the client, not your strategy: every conversation here is played by Scripted, a strategy of the tests'
// own, so changing src/strategy.cpp never fails them. Your strategy's tests are tests/test_strategy.cpp.
// A small harness of its own (CHECK counts failures), so the kit needs nothing beyond g++ and nlohmann-json.
#include <cstdint>
#include <iostream>
#include <memory>
#include <sstream>
#include <stdexcept>
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
            std::cerr << __FILE__ << ":" << __LINE__ << ": failed: " #condition << std::endl; \
        }                                                                                   \
    } while (0)

static const json NEW_GAME = {{"type", "new_game"}, {"board", "custom"}, {"height", 3}, {"width", 4}, {"mines", 2},
                              {"rule", "safe"}, {"seed", "c9d0342fd9bb4860326e6cb830c5b01b"}, {"move_ms", 10000},
                              {"game_ms", 300000}};

static json observation(std::vector<std::string> rows) {
    return {{"type", "observation"}, {"grid", rows}, {"mines", 2}, {"flags", 0}, {"moves", 0}};
}

// A strategy for testing the client: its first reply reveals the first covered cell as a guess, noting the game's
// rule and the generator's first number (what the client gave it); later ones reveal the first covered cell and
// flag the last.
class Scripted : public Strategy {
public:
    Scripted(const GameInfo& info, SplitMix64 rng) {
        std::ostringstream text;
        text << info.rule << ' ' << std::hex << rng.next();
        note_ = text.str();
    }
    Reply play(const Board& board) override {
        std::vector<std::pair<int, int>> covered;
        for (int r = 0; r < board.height(); ++r)
            for (int c = 0; c < board.width(); ++c)
                if (board.is_covered(r, c)) covered.emplace_back(r, c);
        Reply reply;
        if (!board.any_revealed()) return reply.reveal(covered.front().first, covered.front().second, true, note_);
        return reply.reveal(covered.front().first, covered.front().second).flag(covered.back().first, covered.back().second);
    }

private:
    std::string note_;
};

static std::unique_ptr<Strategy> scripted(const GameInfo& info, SplitMix64 rng) {
    return std::make_unique<Scripted>(info, rng);
}

static std::string first_note(const std::string& rule) {
    std::ostringstream text;
    text << rule << ' ' << std::hex << SplitMix64("c9d0342fd9bb4860326e6cb830c5b01b").next();
    return text.str();
}

// Run the client over these lines and return its answers, parsed.
static std::vector<json> converse(const std::vector<std::string>& lines, Client::Factory factory = scripted) {
    std::stringstream input, output;
    for (const auto& line : lines) input << line << '\n';
    Client("tester", "7", factory).run(input, output);
    std::vector<json> answers;
    for (std::string line; std::getline(output, line);) answers.push_back(json::parse(line));
    return answers;
}

static void test_generator() {
    SplitMix64 zero(std::string(32, '0'));
    CHECK(zero.state() == 0);
    CHECK(zero.next() == 0xe220a8397b1dcdafULL && zero.next() == 0x6e789e6aa1b965f4ULL && zero.next() == 0x06c45d188009454fULL);
    SplitMix64 a("665d7c98f171fe590dc12f9daf846ac9");
    CHECK(a.state() == 0x6b9c53055ef59490ULL);
    CHECK(a.next() == 0xb53c6e4fbe4adf5cULL && a.next() == 0x34cb863974a611f0ULL && a.next() == 0xb16c08e5f02d657dULL);
    SplitMix64 b("0123456789abcdeffedcba9876543210");
    CHECK(b.state() == 0xffffffffffffffffULL);
    CHECK(b.next() == 0xe4d971771b652c20ULL && b.next() == 0xe99ff867dbf682c9ULL && b.next() == 0x382ff84cb27281e9ULL);
    SplitMix64 c("665d7c98f171fe590dc12f9daf846ac9");
    std::vector<std::uint64_t> drawn;
    for (std::uint64_t n : {71, 71, 10, 480, 1}) drawn.push_back(c.below(n));
    CHECK((drawn == std::vector<std::uint64_t>{59, 41, 3, 22, 0}));
    bool threw = false;
    try { c.below(0); } catch (const std::invalid_argument&) { threw = true; }
    CHECK(threw);
}

static void test_board() {
    Board board({"1F#", "110"}, 1, 1, 3);
    CHECK(board.height() == 2 && board.width() == 3 && board.mines() == 1 && board.flags() == 1 && board.moves() == 3);
    CHECK(board.number(0, 0) == 1 && board.number(0, 1) == -1);
    CHECK(board.is_flagged(0, 1) && board.is_covered(0, 2) && !board.is_covered(0, 1));
    CHECK((board.neighbours(0, 0) == std::vector<Cell>{{0, 1}, {1, 0}, {1, 1}}));
    CHECK(board.neighbours(1, 1).size() == 5);
    CHECK(board.any_revealed() && !Board({"#F", "##"}).any_revealed());
    bool threw = false;
    try { Board({"###", "##"}); } catch (const std::invalid_argument&) { threw = true; }
    CHECK(threw);
}

static void test_reply() {
    Reply reply;
    reply.reveal(1, 2).flag(0, 0).reveal(3, 4, true, "why", 0.25);
    CHECK(reply.to_json() == json::parse(R"({"actions": [["reveal", 1, 2], ["flag", 0, 0], ["reveal", 3, 4]],
                                             "guess": [[3, 4]], "notes": [[2, "why", 0.25]]})"));
    Reply other;
    other.chord(1, 1).unflag(0, 0, "oops");
    CHECK(other.to_json() == json::parse(R"({"actions": [["chord", 1, 1], ["unflag", 0, 0]], "notes": [[1, "oops"]]})"));
}

static void test_example_exchange() {
    auto answers = converse({R"({"type":"hello","protocol":1})", NEW_GAME.dump(), observation({"####", "####", "####"}).dump(),
                             observation({"0000", "1111", "#1##"}).dump(),
                             R"({"type":"game_over","outcome":"won","message":""})", R"({"type":"quit"})"});
    CHECK(answers.size() == 3);
    if (answers.size() != 3) return;
    CHECK(answers[0] == json::parse(R"({"protocol": 1, "name": "tester", "version": "7"})"));
    json first = json::parse(R"({"actions": [["reveal", 0, 0]], "guess": [[0, 0]]})");
    first["notes"] = json::array({json::array({0, first_note("safe")})});
    CHECK(answers[1] == first);
    CHECK(answers[2] == json::parse(R"({"actions": [["reveal", 2, 0], ["flag", 2, 3]]})"));
}

static void test_ignores_what_it_should() {
    auto answers = converse({"", "   ", R"({"type":"hello","protocol":1,"future":true})", R"({"type":"something_new"})",
                             R"({"type":"quit"})", R"({"type":"hello","protocol":1})"});
    CHECK(answers.size() == 1 && answers[0]["name"] == "tester");
}

class Broken : public Strategy {
public:
    explicit Broken(std::string rule) : rule_(std::move(rule)) {}
    Reply play(const Board&) override {
        if (rule_ == "none") throw std::runtime_error("not this rule");
        return Reply().reveal(0, 0);
    }
private:
    std::string rule_;
};

static void test_a_failing_strategy_scores_an_error() {
    json broken = NEW_GAME;
    broken["rule"] = "none";
    std::stringstream ignored;
    auto* old = std::cerr.rdbuf(ignored.rdbuf());  // the client logs the error on stderr
    auto answers = converse({broken.dump(), observation({"####", "####", "####"}).dump(), NEW_GAME.dump(),
                             observation({"##", "##"}).dump()},
                            [](const GameInfo& info, SplitMix64) { return std::make_unique<Broken>(info.rule); });
    std::cerr.rdbuf(old);
    CHECK(answers.size() == 2);
    if (answers.size() != 2) return;
    CHECK(answers[0] == json::parse(R"({"error": "not this rule"})"));
    CHECK(answers[1] == json::parse(R"({"actions": [["reveal", 0, 0]]})"));
}

static void test_a_malformed_message_is_ignored() {
    json bad = NEW_GAME;
    bad["height"] = "three";
    std::stringstream ignored;
    auto* old = std::cerr.rdbuf(ignored.rdbuf());
    auto answers = converse({bad.dump(), "not json", R"({"type":"hello","protocol":1})"});
    std::cerr.rdbuf(old);
    CHECK(answers.size() == 1 && answers[0]["name"] == "tester");
    CHECK(ignored.str().find("not JSON") != std::string::npos);
}

static void test_each_game_restarts_its_generator() {
    const std::string first = observation({"####", "####", "####"}).dump();
    auto answers = converse({NEW_GAME.dump(), first, NEW_GAME.dump(), first});
    CHECK(answers.size() == 2 && answers[0] == answers[1]);
    CHECK(!answers.empty() && answers[0]["notes"][0][1] == first_note("safe"));
}

static void test_the_rule_reaches_the_strategy() {
    const std::vector<std::string> rules{"safe", "windows", "opening", "none"};
    for (const auto& rule : rules) {
        json game = NEW_GAME;
        game["rule"] = rule;
        auto answers = converse({game.dump(), observation({"####", "####", "####"}).dump()});
        CHECK(answers.size() == 1 && answers[0]["notes"][0][1] == first_note(rule));
    }
}

int main() {
    test_generator();
    test_board();
    test_reply();
    test_example_exchange();
    test_ignores_what_it_should();
    test_a_failing_strategy_scores_an_error();
    test_a_malformed_message_is_ignored();
    test_each_game_restarts_its_generator();
    test_the_rule_reaches_the_strategy();
    std::cout << checks - failures << " of " << checks << " checks passed" << std::endl;
    return failures == 0 ? 0 : 1;
}
