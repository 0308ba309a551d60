// Your bot: the one file to edit. A Strategy plays one game; play(board) answers each observation.
//
// The starting strategy is the one every starter kit shares (docs/protocol.md, "The shared generator and
// the starting strategy"): the first click, then every move the two single-cell rules make certain, then a
// guess drawn from the game's seeded generator, with a note saying why.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "client.hpp"

const char* const BOT_NAME = "__BOT_NAME__";
const char* const BOT_VERSION = "1";

namespace {

// The cells the two single-cell rules decide, applied until nothing changes, as two row-major lists:
// safe cells, and mines not yet flagged.
void certain_moves(const Board& board, std::vector<Cell>& safe_cells, std::vector<Cell>& mine_cells) {
    const int height = board.height(), width = board.width();
    enum : char { UNDECIDED, SAFE, MINE };
    std::vector<char> fact(static_cast<std::size_t>(height * width), UNDECIDED);
    std::vector<Cell> numbers;
    for (int r = 0; r < height; ++r)
        for (int c = 0; c < width; ++c) {
            if (board.is_flagged(r, c)) fact[r * width + c] = MINE;
            if (board.number(r, c) > 0) numbers.emplace_back(r, c);
        }
    std::vector<int> unknown;
    bool changed = true;
    while (changed) {
        changed = false;
        for (const auto& [row, col] : numbers) {
            int known = 0;
            unknown.clear();
            for (const auto& [r, c] : board.neighbours(row, col)) {
                const char f = fact[r * width + c];
                if (f == MINE) ++known;
                else if (f == UNDECIDED && board.is_covered(r, c)) unknown.push_back(r * width + c);
            }
            if (unknown.empty()) continue;
            const int value = board.number(row, col);
            if (known == value) {
                for (int k : unknown) fact[k] = SAFE;
                changed = true;
            } else if (known + static_cast<int>(unknown.size()) == value) {
                for (int k : unknown) fact[k] = MINE;
                changed = true;
            }
        }
    }
    for (int r = 0; r < height; ++r)
        for (int c = 0; c < width; ++c) {
            if (fact[r * width + c] == SAFE) safe_cells.emplace_back(r, c);
            if (fact[r * width + c] == MINE && !board.is_flagged(r, c)) mine_cells.emplace_back(r, c);
        }
}

class StartingStrategy : public Strategy {
public:
    StartingStrategy(const GameInfo& info, SplitMix64 rng) : info_(info), rng_(rng) {}

    Reply play(const Board& board) override {
        Reply reply;
        if (!board.any_revealed()) {  // the first click: a corner, or 3 cells in under "opening"
            if (info_.rule == "opening")
                return reply.reveal(std::min(3, board.height() - 1), std::min(3, board.width() - 1));
            if (info_.rule == "none") return reply.reveal(0, 0, true, "first click: no rule makes it safe");
            return reply.reveal(0, 0);
        }
        std::vector<Cell> safe, mines;
        certain_moves(board, safe, mines);
        if (!safe.empty() || !mines.empty()) {
            for (const auto& [r, c] : safe) reply.reveal(r, c);
            for (const auto& [r, c] : mines) reply.flag(r, c);
            return reply;
        }
        std::vector<Cell> covered;
        for (int r = 0; r < board.height(); ++r)
            for (int c = 0; c < board.width(); ++c)
                if (board.is_covered(r, c)) covered.emplace_back(r, c);
        if (covered.empty()) return Reply::error("no covered cell left to reveal");
        const Cell cell = covered[rng_.below(covered.size())];
        const std::string note = "no certain move: one of " + std::to_string(covered.size()) + " covered cells at random";
        return reply.reveal(cell.first, cell.second, true, note);
    }

private:
    GameInfo info_;
    SplitMix64 rng_;  // the only randomness to use: the same seed plays the same game
};

}  // namespace

std::unique_ptr<Strategy> make_strategy(const GameInfo& info, SplitMix64 rng) {
    return std::make_unique<StartingStrategy>(info, rng);
}
