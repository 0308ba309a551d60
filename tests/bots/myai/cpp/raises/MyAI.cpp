#include "MyAI.hpp"

MyAI::MyAI(int _rowDimension, int _colDimension, int _totalMines, int _agentX, int _agentY) : Agent()
{
    agentX = _agentX;
    agentY = _agentY;
}

Agent::Action MyAI::getAction(int number)
{
    seen.push_back(number);
    if (seen.size() == 2)
        return {UNCOVER, seen.at(5), agentY};
    return {UNCOVER, agentX, agentY};
}
