// examples/standalone_bot.py's strategy as a C++ course-shell agent (x and y from 0): it learns the board one number
// at a time (uncovering every neighbour of a zero first, which the arena gives without a move), then plays what the
// standalone example would on that board: every certain reveal, then every certain flag, in row-major order, else a
// guess drawn from the protocol's shared generator seeded from Agent::seed. tests/arena/isolation/myai/ holds its
// games to the example's, move for move.
#ifndef MINE_SWEEPER_CPP_SHELL_MYAI_HPP
#define MINE_SWEEPER_CPP_SHELL_MYAI_HPP

#include "Agent.hpp"
#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

class MyAI : public Agent
{
public:
    MyAI(int _rowDimension, int _colDimension, int _totalMines, int _agentX, int _agentY);
    Action getAction(int number) override;

private:
    using Cell = std::pair<int, int>; // (row from the top, col)
    int rows, cols;
    std::vector<std::string> grid;
    uint64_t state;
    bool asked;
    Cell last;
    std::vector<Cell> explore;
    std::vector<std::pair<Action_type, Cell>> plan;
    size_t planned;

    int below(int n);
    std::vector<Cell> neighbours(int r, int c) const;
    Action act(Action_type kind, int r, int c);
    void certain(std::set<Cell> &safe, std::set<Cell> &mines) const;
};

#endif
