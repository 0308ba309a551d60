// __BOT_NAME__: a Minesweeper agent in the course shell's C++ interface (docs/courses.md). See MyAI.cpp.
#ifndef MINE_SWEEPER_CPP_SHELL_MYAI_HPP
#define MINE_SWEEPER_CPP_SHELL_MYAI_HPP

#include "Agent.hpp"
#include <deque>
#include <random>
#include <utility>
#include <vector>

class MyAI : public Agent
{
public:
    MyAI(int _rowDimension, int _colDimension, int _totalMines, int _agentX, int _agentY);

    Action getAction(int number) override;

private:
    using Tile = std::pair<int, int>; // (x, y)
    static const int COVERED = -1;
    static const int FLAGGED = -2;

    std::vector<std::vector<int>> board; // [x][y]: a number, COVERED or FLAGGED
    std::deque<Tile> safe;
    std::mt19937 random;
    int flags;
    bool asked;

    std::vector<Tile> around(int x, int y, int state) const;
};

#endif
