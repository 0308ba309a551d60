#include "MyAI.hpp"
