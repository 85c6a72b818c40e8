import CLinux
import Foundation
import RelayFetchCLI

// A bulk transfer allocates and frees 16-256 KiB buffers all the time, on several threads. By
// default glibc hands the top of each thread's heap back to the kernel as soon as it is free and
// takes freed large blocks as a hint to serve the next ones from fresh mappings: every buffer
// then costs page faults and zeroing (a tenth of a download's CPU). Keep up to 8 MiB of free heap
// and map only blocks of 2 MiB or more. The library leaves the allocator alone; this is the tool's
// process-wide choice.
mallopt(RF_M_TRIM_THRESHOLD, 8 << 20)
mallopt(RF_M_MMAP_THRESHOLD, 2 << 20)

CommandLineTool.prepareProcess()
exit(await CommandLineTool.run(Array(CommandLine.arguments.dropFirst())))
