/* SPDX-License-Identifier: MIT */
/* sim_config.c - ownership of a sim_config_t (sim_config.h): the config owns
 * its arrays, and each client its script and mix, each DNS epoch its members. */
#include "sim_config.h"

#include <stdlib.h>
#include <string.h>

void sim_config_free(sim_config_t *cfg) {
    if (cfg == NULL) {
        return;
    }
    for (size_t i = 0; cfg->clients != NULL && i < cfg->n_clients; i++) {
        free(cfg->clients[i].script_ms);
        free(cfg->clients[i].mix);
        free(cfg->clients[i].endpoints);
    }
    for (size_t i = 0; cfg->dns != NULL && i < cfg->n_dns; i++) {
        free(cfg->dns[i].members);
    }
    free(cfg->servers);
    free(cfg->clients);
    free(cfg->links);
    free(cfg->dns);
    free(cfg->faults);
    free(cfg->expects);
    for (size_t i = 0; i < cfg->n_sample_tables; i++) {
        free(cfg->sample_tables[i]);
    }
    free(cfg->sample_tables);
    memset(cfg, 0, sizeof *cfg);
}
