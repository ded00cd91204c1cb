// SPDX-License-Identifier: GPL-2.0
/*
 * hold_tap SECONDS [COMM [IFNAME]]: hold an ETH_P_ALL packet socket open,
 * unbound as tcpdump -i any, lldpd or a monitoring agent does (bound to
 * IFNAME as tcpdump -i IFNAME does, when given), for the checks
 * of --list-taps, zc-doctor and the tests' environment skips (in guests
 * without python3 too). Prints "open PID" once the socket is open.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <sys/prctl.h>
#include <sys/socket.h>

int main(int argc, char **argv)
{
	int secs = argc > 1 ? atoi(argv[1]) : 0, fd;

	if (secs <= 0 || secs > 3600) {
		fprintf(stderr, "usage: %s SECONDS(1-3600) [COMM [IFNAME]]\n", argv[0]);
		return 128;
	}
	if (argc > 2)
		prctl(PR_SET_NAME, argv[2], 0, 0, 0);
	fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));
	if (fd < 0) {
		perror("socket(AF_PACKET, SOCK_RAW, ETH_P_ALL)");
		return 1;
	}
	if (argc > 3) {
		struct sockaddr_ll sll = {
			.sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL),
			.sll_ifindex = if_nametoindex(argv[3]),
		};

		if (!sll.sll_ifindex ||
		    bind(fd, (struct sockaddr *)&sll, sizeof(sll))) {
			perror("bind(AF_PACKET)");
			return 1;
		}
	}
	printf("open %d\n", getpid());
	fflush(stdout);
	sleep(secs);
	close(fd);
	return 0;
}
