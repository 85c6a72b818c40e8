import Foundation
import RelayFetchCLI

exit(await CommandLineTool.run(Array(CommandLine.arguments.dropFirst())))
