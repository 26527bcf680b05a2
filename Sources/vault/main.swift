import VaultAPI

await VaultCommand.runAndExit()
