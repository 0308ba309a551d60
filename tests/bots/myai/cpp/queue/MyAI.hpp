// A student's agent in the course's C++ shell (x and y from 0, y from the bottom): a queue of tiles known safe, every
// neighbour of a zero; LEAVE when it runs out. It prints what it does with cout, as students' agents do.
#ifndef MINE_SWEEPER_CPP_SHELL_MYAI_HPP
#define MINE_SWEEPER_CPP_SHELL_MYAI_HPP

#include "Agent.hpp"
#include <deque>
#include <iostream>
#include <set>
#include <utility>

using namespace std;

class MyAI : public Agent
{
public:
    MyAI(int _rowDimension, int _colDimension, int _totalMines, int _agentX, int _agentY);

    Action getAction(int number) override;

private:
    deque<pair<int, int>> safe;
    set<pair<int, int>> seen;
};

#endif
