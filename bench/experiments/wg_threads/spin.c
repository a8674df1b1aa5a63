/* spin.c - a busy loop for SECONDS (argv[1]), to stand for another process
 * on one core: `taskset -c 0 spin 20 &`. */
#include <stdlib.h>
#include <time.h>
int main(int argc, char **argv) {
    double end = argc > 1 ? atof(argv[1]) : 10;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    volatile unsigned long x = 0;
    do {
        for (int i = 0; i < 1000000; i++) x += i;
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < end);
    return 0;
}
