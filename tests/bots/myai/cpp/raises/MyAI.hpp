#ifndef MINE_SWEEPER_CPP_SHELL_MYAI_HPP
#define MINE_SWEEPER_CPP_SHELL_MYAI_HPP

#include "Agent.hpp"
#include <vector>

// A student's agent that reads past the end of its vector on its second move.
class MyAI : public Agent
{
public:
    MyAI(int _rowDimension, int _colDimension, int _totalMines, int _agentX, int _agentY);
    Action getAction(int number) override;

private:
    std::vector<int> seen;
};

#endif
