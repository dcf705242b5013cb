/* interop_faults.h - deliberate faults of the reference interop driver
 * (docs/interop.md "Broken drivers"), one at a time, chosen by the
 * environment variable RL_INTEROP_FAULT. They act on the datagrams the
 * runtime sends (the link wraps sendto and sendmmsg) and on the datagrams it
 * receives (the driver's receive path), never inside the library. */
#ifndef INTEROP_FAULTS_H
#define INTEROP_FAULTS_H

/* Read RL_INTEROP_FAULT; an unknown name ends the driver with exit 2. */
void interop_faults_init(void);

#endif /* INTEROP_FAULTS_H */
