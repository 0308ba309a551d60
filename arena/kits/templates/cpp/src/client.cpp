// The protocol client: see client.hpp.
#include "client.hpp"

#include <algorithm>
#include <exception>
#include <iostream>
#include <stdexcept>

using nlohmann::json;

namespace {
constexpr int PROTOCOL = 1;
}

Board::Board(std::vector<std::string> rows, int mines, int flags, int moves)
    : rows_(std::move(rows)), height_(0), width_(0), mines_(mines), flags_(flags), moves_(moves) {
    if (rows_.empty() || rows_[0].empty()) throw std::invalid_argument("the grid must not be empty");
    for (const auto& row : rows_)
        if (row.size() != rows_[0].size()) throw std::invalid_argument("the grid's rows must be of equal length");
    height_ = static_cast<int>(rows_.size());
    width_ = static_cast<int>(rows_[0].size());
}

bool Board::any_revealed() const {
    for (const auto& row : rows_)
        for (char ch : row)
            if (ch >= '0' && ch <= '8') return true;
    return false;
}

std::vector<Cell> Board::neighbours(int row, int col) const {
    std::vector<Cell> out;
    for (int r = std::max(row - 1, 0); r <= std::min(row + 1, height_ - 1); ++r)
        for (int c = std::max(col - 1, 0); c <= std::min(col + 1, width_ - 1); ++c)
            if (r != row || c != col) out.emplace_back(r, c);
    return out;
}

Reply& Reply::add(const char* kind, int row, int col, const std::string& note, std::optional<double> p_mine) {
    if (!note.empty() || p_mine) {
        json entry = json::array({actions_.size(), note});
        if (p_mine) entry.push_back(*p_mine);
        notes_.push_back(entry);
    }
    actions_.push_back(json::array({kind, row, col}));
    return *this;
}

Reply& Reply::reveal(int row, int col, bool guess, const std::string& note, std::optional<double> p_mine) {
    if (guess) guesses_.push_back(json::array({row, col}));
    return add("reveal", row, col, note, p_mine);
}
Reply& Reply::flag(int row, int col, const std::string& note) { return add("flag", row, col, note, std::nullopt); }
Reply& Reply::unflag(int row, int col, const std::string& note) { return add("unflag", row, col, note, std::nullopt); }
Reply& Reply::chord(int row, int col, const std::string& note) { return add("chord", row, col, note, std::nullopt); }

Reply Reply::error(const std::string& text) {
    Reply reply;
    reply.error_ = text;
    return reply;
}

json Reply::to_json() const {
    if (error_) return json{{"error", *error_}};
    json message{{"actions", actions_}};
    if (!guesses_.empty()) message["guess"] = guesses_;
    if (!notes_.empty()) message["notes"] = notes_;
    return message;
}

Client::Client(std::string name, std::string version, Factory factory)
    : name_(std::move(name)), version_(std::move(version)), factory_(std::move(factory)) {}

std::optional<json> Client::handle(const json& message) {
    const std::string type = message.contains("type") && message["type"].is_string() ? message["type"].get<std::string>() : "";
    if (type == "hello") return json{{"protocol", PROTOCOL}, {"name", name_}, {"version", version_}};
    if (type == "new_game") {
        GameInfo info;
        info.board = message.value("board", info.board);
        info.height = message.value("height", 0);
        info.width = message.value("width", 0);
        info.mines = message.value("mines", 0);
        info.rule = message.value("rule", info.rule);
        info.seed = message.value("seed", info.seed);
        info.move_ms = message.value("move_ms", info.move_ms);
        info.game_ms = message.value("game_ms", info.game_ms);
        info_ = info;
        strategy_ = factory_(info_, SplitMix64(info_.seed));
        return std::nullopt;
    }
    if (type == "observation") {
        try {
            Board board(message.at("grid").get<std::vector<std::string>>(), message.value("mines", 0),
                        message.value("flags", 0), message.value("moves", 0));
            if (!strategy_) strategy_ = factory_(info_, SplitMix64(info_.seed));  // no new_game: the defaults
            return strategy_->play(board).to_json();
        } catch (const std::exception& error) {  // the game is scored error; the bot lives on
            std::cerr << "error: " << error.what() << std::endl;
            return Reply::error(error.what()).to_json();
        }
    }
    return std::nullopt;  // game_over, and whatever later protocol versions add
}

void Client::run(std::istream& input, std::ostream& output) {
    std::string line;
    while (std::getline(input, line)) {
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        json message = json::parse(line, nullptr, false);
        if (message.is_discarded()) {
            std::cerr << "ignored a line that is not JSON: " << line.substr(0, 80) << std::endl;
            continue;
        }
        if (!message.is_object()) continue;
        if (message.contains("type") && message["type"] == "quit") return;
        try {
            if (auto answer = handle(message)) output << answer->dump() << '\n' << std::flush;
        } catch (const std::exception& error) {  // a field of the wrong type: say so, keep the conversation
            std::cerr << "ignored a message: " << error.what() << std::endl;
        }
    }
}
