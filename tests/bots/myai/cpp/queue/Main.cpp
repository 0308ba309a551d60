// The course's own main, which a student's folder still holds: the arena builds without it.
int main() { return this_does_not_compile; }
