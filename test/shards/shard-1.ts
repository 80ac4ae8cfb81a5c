import { runShard } from '../helpers/shard.js'

await runShard(1, 4)
