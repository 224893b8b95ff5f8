! llvm-mc names numeric local labels ".Ltmp<n>" in creation order, skipping
! names taken; a later ".Ltmp1" of the source becomes ".Ltmp10"; the label
! of "." has no name; a source ".Ltmp0" is not the label of ".".
	.text
	bt	1f
1:	nop
	bt	1b
1:	bt	1b
	bt	2f
.Ltmp1:	nop
2:	nop
	bt	.Ltmp1
	bt	.
.Ltmp0:	nop
	bt	.Ltmp0
