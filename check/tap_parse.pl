#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0
# Parse TAP files with TAP::Parser (what prove uses); print each parse
# error and exit 1 if there was any.
use strict;
use warnings;
use TAP::Parser;

my $bad = 0;
for my $file (@ARGV) {
	open(my $fh, '<', $file) or die "$file: $!\n";
	my $tap = do { local $/; <$fh> };
	close($fh);
	my $p = TAP::Parser->new({ tap => $tap });
	while (defined(my $r = $p->next)) { }
	for my $e ($p->parse_errors) {
		print "$file: $e\n";
		$bad = 1;
	}
}
exit $bad;
