/* optable: long-option tables (getopt_long) packed several entries a line:
 * an option that takes an argument, a flag, and the end of a table. */
#ifndef CF_OPTABLE_H
#define CF_OPTABLE_H

#include <getopt.h>

#define OPT_ARG(name, val) { name, required_argument, NULL, val }
#define OPT_FLAG(name, val) { name, no_argument, NULL, val }
#define OPT_END { NULL, 0, NULL, 0 }

#endif
