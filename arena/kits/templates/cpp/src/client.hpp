// The protocol client (docs/protocol.md): reads the arena's messages, answers hello, keeps the board of
// each observation and sends the strategy's replies. You should not need to edit this file or
// client.cpp: your bot is src/strategy.cpp. One JSON object per line each way; stdout carries nothing but
// answers (log to std::cerr).
#pragma once

#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "rng.hpp"

using Cell = std::pair<int, int>;  // (row, col)

// What new_game says about the game about to start.
struct GameInfo {
    std::string board = "custom";
    int height = 0;
    int width = 0;
    int mines = 0;
    std::string rule = "safe";  // the first-click rule: safe, opening, none, windows or zero
    std::string seed = std::string(32, '0');  // this game's own seed: 32 hex digits
    long long move_ms = 10000;
    long long game_ms = 300000;
};

// One observation: the grid as the arena sent it, '#' covered, 'F' flagged, '0'-'8' revealed.
class Board {
public:
    Board(std::vector<std::string> rows, int mines = 0, int flags = 0, int moves = 0);

    int height() const { return height_; }
    int width() const { return width_; }
    int mines() const { return mines_; }
    int flags() const { return flags_; }
    int moves() const { return moves_; }
    char at(int row, int col) const { return rows_[row][col]; }
    bool is_covered(int row, int col) const { return rows_[row][col] == '#'; }  // covered, not flagged
    bool is_flagged(int row, int col) const { return rows_[row][col] == 'F'; }
    // The revealed number, or -1 for a covered or flagged cell.
    int number(int row, int col) const {
        char ch = rows_[row][col];
        return ch >= '0' && ch <= '8' ? ch - '0' : -1;
    }
    // False before the first move (every cell covered or flagged).
    bool any_revealed() const;
    // The up to 8 cells around (row, col), in row-major order.
    std::vector<Cell> neighbours(int row, int col) const;

private:
    std::vector<std::string> rows_;
    int height_, width_, mines_, flags_, moves_;
};

// The answer to one observation: actions played in order, which reveals are guesses, and notes.
class Reply {
public:
    // Reveal a cell; guess marks it as not certain, note and p_mine explain it in replays.
    Reply& reveal(int row, int col, bool guess = false, const std::string& note = "",
                  std::optional<double> p_mine = std::nullopt);
    Reply& flag(int row, int col, const std::string& note = "");
    Reply& unflag(int row, int col, const std::string& note = "");
    Reply& chord(int row, int col, const std::string& note = "");
    // A reply that gives up this game (scored error); the process goes on to the next game.
    static Reply error(const std::string& text);

    std::size_t size() const { return actions_.size(); }
    nlohmann::json to_json() const;

private:
    Reply& add(const char* kind, int row, int col, const std::string& note, std::optional<double> p_mine);
    nlohmann::json actions_ = nlohmann::json::array();
    nlohmann::json guesses_ = nlohmann::json::array();
    nlohmann::json notes_ = nlohmann::json::array();
    std::optional<std::string> error_;
};

// What src/strategy.cpp provides: a strategy per game, the bot's name and version.
class Strategy {
public:
    virtual ~Strategy() = default;
    virtual Reply play(const Board& board) = 0;
};
std::unique_ptr<Strategy> make_strategy(const GameInfo& info, SplitMix64 rng);
extern const char* const BOT_NAME;
extern const char* const BOT_VERSION;

// The conversation with the arena.
class Client {
public:
    using Factory = std::function<std::unique_ptr<Strategy>(const GameInfo&, SplitMix64)>;
    Client(std::string name, std::string version, Factory factory);

    // The answer to one message, or nothing for messages that take none.
    std::optional<nlohmann::json> handle(const nlohmann::json& message);
    // Answer every line of input on output until quit or the end of the input.
    void run(std::istream& input, std::ostream& output);

private:
    std::string name_, version_;
    Factory factory_;
    GameInfo info_;
    std::unique_ptr<Strategy> strategy_;
};
