#include "ra_litert.h"
#include <stdio.h>
#include <stdlib.h>

RA_ENGINE_LOADER(ra_litert_api_load, ra_litert_api, RA_LITERT_FUNCTIONS)

char *ra_litert_cpu_options_payload(int threads) {
    char *payload = malloc(32);
    if (payload != NULL) snprintf(payload, 32, "num_threads = %d\n", threads);
    return payload;
}

void ra_litert_free_payload(void *payload) { free(payload); }
