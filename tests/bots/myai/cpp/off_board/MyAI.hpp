#ifndef MINE_SWEEPER_CPP_SHELL_MYAI_HPP
#define MINE_SWEEPER_CPP_SHELL_MYAI_HPP

#include "Agent.hpp"

// A student's agent that counts x from 1, as its Java friend's does, and so steps off the board's right edge.
class MyAI : public Agent
{
public:
    MyAI(int _rowDimension, int _colDimension, int _totalMines, int _agentX, int _agentY)
    {
        colDimension = _colDimension;
    }

    Action getAction(int number) override { return {UNCOVER, colDimension, 0}; }
};

#endif
