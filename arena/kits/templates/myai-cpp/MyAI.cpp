// __BOT_NAME__: a Minesweeper agent in the course shell's C++ interface (docs/courses.md).
//
// The arena (or the course's own world) builds one MyAI per game and asks getAction for one action at a time.
// Coordinates are the C++ shell's: x is the column, y the row counted from the bottom, both from 0. number is the
// number of the tile your last UNCOVER opened (your start tile's, 0, on the first call) and -1 after FLAG or UNFLAG.
// Edit MyAI.hpp and MyAI.cpp (and add sources beside them if you like); Agent.hpp is the shell's.
//
// This starting agent keeps a queue of tiles known to be safe (every covered neighbour of a number whose mines are
// all flagged), flags a number's covered neighbours when they must all be mines, and otherwise guesses a covered
// tile at random. Make it better.

#include "MyAI.hpp"

MyAI::MyAI(int _rowDimension, int _colDimension, int _totalMines, int _agentX, int _agentY)
    : Agent(), board(_colDimension, std::vector<int>(_rowDimension, COVERED)), random(7), flags(0), asked(true)
{
    rowDimension = _rowDimension;
    colDimension = _colDimension;
    totalMines = _totalMines;
    agentX = _agentX; // the start tile: the world has uncovered it, a zero
    agentY = _agentY;
}

std::vector<MyAI::Tile> MyAI::around(int x, int y, int state) const
{
    std::vector<Tile> found;
    for (int dx = -1; dx <= 1; ++dx)
        for (int dy = -1; dy <= 1; ++dy)
        {
            int nx = x + dx, ny = y + dy;
            if ((dx || dy) && nx >= 0 && nx < colDimension && ny >= 0 && ny < rowDimension && board[nx][ny] == state)
                found.push_back({nx, ny});
        }
    return found;
}

Agent::Action MyAI::getAction(int number)
{
    if (number >= 0 && asked)
        board[agentX][agentY] = number;
    asked = false;
    for (int x = 0; x < colDimension; ++x)
        for (int y = 0; y < rowDimension; ++y)
        {
            int n = board[x][y];
            if (n >= 0 && static_cast<int>(around(x, y, FLAGGED).size()) == n)
                for (const Tile &tile : around(x, y, COVERED)) // all its mines are flagged: the rest are safe
                    safe.push_back(tile);
        }
    while (!safe.empty())
    {
        Tile tile = safe.front();
        safe.pop_front();
        if (board[tile.first][tile.second] == COVERED)
        {
            agentX = tile.first;
            agentY = tile.second;
            asked = true;
            return {UNCOVER, agentX, agentY};
        }
    }
    std::vector<Tile> unknown;
    for (int x = 0; x < colDimension; ++x)
        for (int y = 0; y < rowDimension; ++y)
        {
            int n = board[x][y];
            std::vector<Tile> covered = n >= 0 ? around(x, y, COVERED) : std::vector<Tile>();
            if (!covered.empty() && n - static_cast<int>(around(x, y, FLAGGED).size()) == static_cast<int>(covered.size()))
            {
                Tile mine = covered[0]; // its covered neighbours must all be mines
                board[mine.first][mine.second] = FLAGGED;
                ++flags;
                return {FLAG, mine.first, mine.second};
            }
            if (n == COVERED)
                unknown.push_back({x, y});
        }
    if (unknown.empty() || static_cast<int>(unknown.size()) <= totalMines - flags)
        return {LEAVE, 0, 0}; // every tile left is a mine: the board is cleared
    Tile guess = unknown[std::uniform_int_distribution<size_t>(0, unknown.size() - 1)(random)];
    agentX = guess.first;
    agentY = guess.second;
    asked = true;
    return {UNCOVER, agentX, agentY};
}
