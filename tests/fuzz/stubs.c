/* What the fuzz harnesses link in place of the agent's data plane: the
 * request decoders they test call none of it at run time, but the
 * objects they come in refer to it. */
#include <time.h>

double stream_now(void);

double
stream_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
