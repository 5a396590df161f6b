/* compare: two stored matrix runs side by side, see compare.c. */
#ifndef CF_COMPARE_H
#define CF_COMPARE_H

#include <stdbool.h>
#include <stdint.h>

int compare_run(const char *db, int64_t a, int64_t b, bool json);

#endif
