import VaultApp

await VaultCommand.runAndExit()
