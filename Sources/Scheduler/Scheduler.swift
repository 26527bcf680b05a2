import Vault
