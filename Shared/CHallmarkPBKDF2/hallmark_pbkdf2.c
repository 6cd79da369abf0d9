#include "hallmark_pbkdf2.h"
int hallmark_pbkdf2_placeholder(void) { return 0; }
