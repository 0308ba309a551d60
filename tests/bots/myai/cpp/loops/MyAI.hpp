#ifndef MINE_SWEEPER_CPP_SHELL_MYAI_HPP
#define MINE_SWEEPER_CPP_SHELL_MYAI_HPP

#include "Agent.hpp"

// A student's agent stuck in a loop on its first move: the arena stops it at its time limit.
class MyAI : public Agent
{
public:
    MyAI(int _rowDimension, int _colDimension, int _totalMines, int _agentX, int _agentY) {}

    Action getAction(int number) override
    {
        volatile unsigned long spins = 0;
        while (true)
            spins = spins + 1;
        return {LEAVE, 0, 0};
    }
};

#endif
